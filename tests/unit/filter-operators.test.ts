import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { searchEntries } from "@/features/admin-tables/components/filter-search";
import type { FilterDef, PageSchema } from "@/features/admin-tables/contracts";
import {
  chipParams,
  chipsFrom,
  filterUrlNames,
  operatorsFor,
  parseDecimal,
  parseFilterName,
} from "@/features/admin-tables/filter-operators";
import { parsePageSchema } from "@/features/admin-tables/server/load";
import { pageQueryFrom } from "@/features/admin-tables/server/query";
import { translator } from "@/lib/i18n/messages";

const ledger = JSON.parse(readFileSync("schemas/agent-turns.schema.json", "utf8")) as PageSchema;
const filters = ledger.filters ?? [];
const def = (field: string) => filters.find((f) => f.field === field)!;
const en = translator("en");

describe("filter names and operators", () => {
  it("split a URL name into its field and a known operator, and name an unknown one", () => {
    expect(parseFilterName("status")).toEqual({ field: "status" });
    expect(parseFilterName("cost.gte")).toEqual({ field: "cost", suffix: "gte" });
    expect(parseFilterName("startedAt.from")).toEqual({ field: "startedAt", suffix: "from" });
    expect(parseFilterName("servedModel.not")).toEqual({ field: "servedModel", suffix: "not" });
    expect(parseFilterName("cost.like")).toEqual({ field: "cost", unknown: "like" });
    expect(parseFilterName(".gt")).toEqual({ field: ".gt" });
  });

  it("read only plain decimal numbers", () => {
    for (const ok of ["0", "12", "-3", "0.25", ".5", "1000000"]) expect(parseDecimal(ok)).toBe(ok);
    for (const bad of [
      "",
      "-",
      ".",
      "1.",
      "1e3",
      "1,000",
      "0x10",
      "1.2.3",
      "NaN",
      "Infinity",
      " 1 2",
      "9".repeat(31),
    ])
      expect(parseDecimal(bad)).toBeNull();
  });

  it("offer each filter type its own operators, its own match first", () => {
    expect(operatorsFor(def("servedModel"))).toEqual(["contains", "not"]);
    expect(operatorsFor(def("runId"))).toEqual(["is"]);
    expect(operatorsFor(def("servedAdapter"))).toEqual(["is", "not"]);
    expect(operatorsFor(def("feedback"))).toEqual(["is"]);
    expect(operatorsFor(def("latencyMs"))).toEqual(["gt", "lt", "between"]);
    expect(operatorsFor(def("startedAt"))).toEqual(["between"]);
    expect(filterUrlNames(def("cost"))).toEqual(["cost.gt", "cost.lt", "cost.gte", "cost.lte"]);
    expect(filterUrlNames(def("servedModel"))).toEqual(["servedModel", "servedModel.not"]);
  });

  it("round-trip through the URL: a chip's params read back as the same chip", () => {
    const cases: [string, Parameters<typeof chipParams>[2], string, string?][] = [
      ["servedModel", "contains", "gpt"],
      ["servedModel", "not", "gpt-4o"],
      ["servedAdapter", "is", "openai"],
      ["latencyMs", "gt", "500"],
      ["latencyMs", "lt", "20"],
      ["cost", "between", "0.1", "1"],
      ["startedAt", "between", "2026-11-01", "2026-11-02"],
    ];
    for (const [field, op, value, value2] of cases) {
      const params = chipParams(def(field), field, op, value, value2);
      const [chip, ...rest] = chipsFrom(params, filters);
      expect(rest).toEqual([]);
      expect(chip).toMatchObject({ field, op, value, ...(value2 ? { value2 } : {}) });
    }
    expect(chipParams(def("cost"), "cost", "between", "0.1", "1")).toEqual({
      "cost.gte": "0.1",
      "cost.lte": "1",
    });
  });

  it("replace the chip being edited: its old names are cleared in the same change", () => {
    const [chip] = chipsFrom({ "latencyMs.gt": "500" }, filters);
    expect(chipParams(def("latencyMs"), "latencyMs", "lt", "100", "", chip!.names)).toEqual({
      "latencyMs.gt": "",
      "latencyMs.lt": "100",
    });
  });

  it("show a link's own filters (f.turnId, one end of a range) as chips", () => {
    const chips = chipsFrom({ turnId: "t1", "startedAt.to": "2026-11-02", status: "failed" }, filters);
    expect(chips.map((c) => [c.field, c.op, c.names])).toEqual([
      ["turnId", "is", ["turnId"]],
      ["startedAt", "between", ["startedAt.from", "startedAt.to"]],
      ["status", "is", ["status"]],
    ]);
  });
});

describe("the filter search box", () => {
  it("offers one contains entry per contained text filter, the first suggestions under each, and matching options", () => {
    const entries = searchEntries(
      "gpt",
      filters,
      {
        servedModel: [
          { value: "gpt-4o", label: "gpt-4o" },
          { value: "gpt-4.1", label: "gpt-4.1" },
          { value: "gpt-5", label: "gpt-5" },
        ],
        runId: [{ value: "gpt-run", label: "gpt-run" }],
      },
      en,
      "en",
    );
    const texts = entries.map((e) => e.text);
    expect(texts[0]).toBe("Model contains gpt");
    expect(texts).toContain("Model contains gpt-4o");
    expect(texts).not.toContain("Model contains gpt-5");
    expect(texts).toContain("User (email) contains gpt");
    expect(texts).toContain("Run id is gpt-run");
    // An exact filter is offered only values that exist, never the typed text.
    expect(texts).not.toContain("Run id is gpt");
    expect(entries[0]!.params).toEqual({ servedModel: "gpt" });
    expect(
      searchEntries(
        "fail",
        [
          def("feedback"),
          {
            field: "status",
            label: { en: "Status", zh: "状态" },
            type: "select",
            options: [{ value: "failed", label: { en: "Failed", zh: "失败" } }],
          } satisfies FilterDef,
        ],
        {},
        en,
        "en",
      ).map((e) => e.params),
    ).toEqual([{ status: "failed" }]);
    expect(searchEntries("  ", filters, {}, en, "en")).toEqual([]);
  });
});

describe("the page query's operators", () => {
  const page = parsePageSchema(ledger, "x/agent-turns.schema.json", ["agentTurns"]);
  const query = (search: string) => pageQueryFrom(new URL(`http://x/api?${search}`), page);
  const refusal = (search: string) => {
    try {
      query(search);
    } catch (error) {
      return (error as { status?: number; message: string }).message;
    }
    return null;
  };

  it("passes known operators on and refuses unknown ones and bad numbers, naming the filter", () => {
    expect(query("f.latencyMs.gt=500&f.cost.gte=0.1&f.cost.lte=1&f.servedModel.not=gpt").filters).toEqual({
      "latencyMs.gt": "500",
      "cost.gte": "0.1",
      "cost.lte": "1",
      "servedModel.not": "gpt",
    });
    expect(refusal("f.cost.like=1")).toBe('f.cost.like: unknown operator "like"');
    expect(refusal("f.latencyMs.gt=1e3")).toBe("f.latencyMs.gt must be a number, such as 250 or 0.05");
    expect(refusal("f.cost.gte=2&f.cost.lte=1")).toBe("f.cost.gte must not be above f.cost.lte");
  });
});

describe("a page query's conditions (scopedWhere)", () => {
  it("reads only `<field>.from` / `<field>.to` as a time range: a filter whose name ends in 'to' stays itself", async () => {
    const { scopedWhere } = await import("@/features/admin-tables/server/sql-provider");
    const { sysAgentTurn: t } = await import("@/db/schema");
    const { eq } = await import("drizzle-orm");
    const config = {
      tenantColumn: t.tenantId,
      filters: { photo: (v: string) => eq(t.endUser, v) },
      dateFilters: { startedAt: t.startedAt },
    };
    const ctx = { tenantId: "00000000-0000-4000-8000-000000000001", superAdmin: false } as never;
    const query = (filters: Record<string, string>) =>
      ({
        filters,
        segment: null,
        sort: { field: "startedAt", direction: "desc" },
        cursor: null,
        limit: 50,
      }) as never;
    expect(() => scopedWhere(config, ctx, query({ photo: "x" }))).not.toThrow();
    expect(() => scopedWhere(config, ctx, query({ "startedAt.from": "2026-12-01" }))).not.toThrow();
    expect(() => scopedWhere(config, ctx, query({ "photo.from": "2026-12-01" }))).toThrow(/photo\.from/);
  });
});
