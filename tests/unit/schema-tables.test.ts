import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { badgeLabelsOf } from "@/features/admin-tables/components/badges";
import { chipText } from "@/features/admin-tables/components/filter-chips";
import { presetRange } from "@/features/admin-tables/components/time-presets";
import { chipsFrom } from "@/features/admin-tables/filter-operators";
import { loadPageSchemas, parsePageSchema } from "@/features/admin-tables/server/load";
import { parseTimeBound } from "@/features/admin-tables/server/query";
import { translator } from "@/lib/i18n/messages";

const providers = [
  "agentTurns",
  "agentAudit",
  "agentCost",
  "toolCatalog",
  "gatewayRouting",
  "adminChanges",
  "adminTenants",
  "adminMembers",
  "adminInvitations",
  "agentPrompts",
  "agentRuns",
  "evalDatasets",
  "evalRuns",
];
const ledger = () => JSON.parse(readFileSync("schemas/agent-turns.schema.json", "utf8"));
const parse = (raw: unknown) => parsePageSchema(raw, "x/agent-turns.schema.json", providers);

describe("column and filter fields of the page format", () => {
  it("accepts priorities, widths, alignment, suggestions, presets and badge labels", () => {
    const page = parse(ledger());
    const byField = new Map(page.columns.map((c) => [c.field, c]));
    expect(byField.get("tools")).toMatchObject({ defaultHidden: true, width: 200 });
    expect(page.filters?.find((f) => f.field === "servedModel")).toMatchObject({ suggest: true });
    expect(page.badges?.status?.running).toEqual({ en: "Running", zh: "进行中" });
  });

  it("refuses bad values with the file and the field named", () => {
    const wide = ledger();
    wide.columns[0].width = 5000;
    expect(() => parse(wide)).toThrow(/columns\[0\]\.width must be <= 800/);
    const align = ledger();
    align.columns[0].align = "center";
    expect(() => parse(align)).toThrow(/columns\[0\]\.align must be one of "left", "right"/);
    const preset = ledger();
    preset.filters.find((f: { type: string }) => f.type === "daterange").presets = ["2h"];
    expect(() => parse(preset)).toThrow(/presets\[0\] must be one of "1h"/);
    const suggestOnSelect = ledger();
    suggestOnSelect.filters.find((f: { type: string }) => f.type === "select").suggest = true;
    expect(() => parse(suggestOnSelect)).toThrow(/filters\[\d+\]\.type must be equal to constant/);
    const badLabel = ledger();
    badLabel.badges.status.running = { en: "Running" };
    expect(() => parse(badLabel)).toThrow(/badges\.status\.running\.zh is required/);
  });

  it("refuses a hidden sort column, a column twice, and badge labels for a field that is no badge", () => {
    const hiddenSort = ledger();
    hiddenSort.columns[0].defaultHidden = true;
    expect(() => parse(hiddenSort)).toThrow(/"startedAt" is the default sort, so it cannot be defaultHidden/);
    const twice = ledger();
    twice.columns.push(twice.columns[2]);
    expect(() => parse(twice)).toThrow(/columns has "caller" twice/);
    const notBadge = ledger();
    notBadge.badges.caller = { x: { en: "X", zh: "X" } };
    expect(() => parse(notBadge)).toThrow(/badges\.caller names no badge column or detail field/);
  });

  it("shows time, caller, status, model, tokens, cost and latency on the ledger; the rest (feedback too) is opt-in", () => {
    const page = loadPageSchemas(providers).get("agent-turns")!;
    const shown = page.columns.filter((c) => !c.defaultHidden && !c.superAdminOnly).map((c) => c.field);
    expect(shown).toEqual([
      "startedAt",
      "caller",
      "status",
      "servedModel",
      "inputTokens",
      "outputTokens",
      "cost",
      "latencyMs",
    ]);
  });
});

describe("badge labels", () => {
  it("come from segments, select options and the badges map, in both languages", () => {
    const labels = badgeLabelsOf(loadPageSchemas(providers).get("agent-turns")!);
    expect(labels.get("status")?.get("failed")).toEqual({ en: "Failed", zh: "失败" });
    expect(labels.get("status")?.get("running")?.zh).toBe("进行中");
    expect(labels.get("costStatus")?.get("unpriced")?.zh).toBe("未计价（成本未知）");
    expect(labels.get("source")?.get("drawer")?.zh).toBe("聊天抽屉");
    const members = badgeLabelsOf(loadPageSchemas(providers).get("admin-members")!);
    expect(members.get("role")?.get("admin")).toEqual({ en: "Admin", zh: "管理员" });
  });
});

describe("time presets", () => {
  const now = new Date("2026-11-20T14:05:42.123Z");
  it("start the range that long before now, in whole minutes, and leave its end open", () => {
    expect(presetRange("1h", now)).toEqual({ from: "2026-11-20T13:05:00Z", to: "" });
    expect(presetRange("24h", now)).toEqual({ from: "2026-11-19T14:05:00Z", to: "" });
    expect(presetRange("7d", now)).toEqual({ from: "2026-11-13T14:05:00Z", to: "" });
    expect(presetRange("30d", now)).toEqual({ from: "2026-10-21T14:05:00Z", to: "" });
  });

  it("start this month at local midnight on the 1st", () => {
    const { from } = presetRange("month", now);
    const start = new Date(from);
    expect([start.getFullYear(), start.getMonth(), start.getDate(), start.getHours()]).toEqual([
      2026, 10, 1, 0,
    ]);
  });

  it("produce bounds the API reads as instants", () => {
    for (const preset of ["1h", "24h", "7d", "30d", "month"] as const) {
      const bound = parseTimeBound("startedAt.from", presetRange(preset, now).from);
      expect(bound.kind).toBe("datetime");
      expect(bound.ms).toBeLessThanOrEqual(now.getTime());
    }
  });
});

describe("filter chips", () => {
  const page = loadPageSchemas(providers).get("agent-turns")!;
  const filters = page.filters ?? [];
  const text = (values: Record<string, string>, locale: "en" | "zh" = "en") =>
    chipsFrom(values, filters).map((c) => chipText(c, filters, translator(locale), locale));
  it("read as the filter's label, its operator and the value the viewer knows", () => {
    expect(text({ servedModel: "gpt" })).toEqual(["Model contains gpt"]);
    expect(text({ costStatus: "unpriced" }, "zh")).toEqual(["计价 是 未计价（成本未知）"]);
    expect(text({ "servedAdapter.not": "openai" })).toEqual(["Adapter is not OpenAI"]);
    expect(text({ "latencyMs.gt": "500" })).toEqual(["Latency (ms) > 500"]);
    expect(text({ "cost.gte": "0.1", "cost.lte": "1" })).toEqual(["Cost (USD) between 0.1 and 1"]);
    expect(text({ "startedAt.from": "2026-11-01" })).toEqual(["Time range: since 2026-11-01"]);
    expect(text({ runId: "r1" })).toEqual(["Run id is r1"]);
    expect(text({ tenant: "Glob" })).toEqual(["Tenant is Glob"]);
    expect(text({ turnId: "abc" })).toEqual(["turnId is abc"]);
  });
});
