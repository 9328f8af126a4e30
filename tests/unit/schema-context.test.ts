import { describe, expect, it } from "vitest";
import { PageCatalog } from "@/features/admin-tables/server";
import { pageHref, rangeStart, rowsFilters } from "@/features/drawer/server/copilot/pages";
import {
  estimateTokens,
  SCHEMA_TOKEN_BUDGET,
  SchemaContext,
} from "@/features/drawer/server/copilot/schema-context";
import { governanceToolSet } from "@/features/drawer/server/copilot/tools";
import { argsFor } from "@/lib/gateway/adapters/offline";

const catalog = PageCatalog.load({ listTools: () => [] });
const ledger = catalog.schemas.get("agent-turns")!;
const cost = catalog.schemas.get("agent-cost")!;

describe("the schema context enricher", () => {
  it("stays within its ~1,500-token budget for a tenant admin and for the super admin", () => {
    const context = new SchemaContext(catalog);
    for (const viewer of ["admin", "super"] as const) {
      const summary = context.summary(viewer);
      expect(summary.tokens).toBe(estimateTokens(summary.text));
      expect(summary.tokens).toBeLessThanOrEqual(SCHEMA_TOKEN_BUDGET);
      expect(summary.tokens).toBeGreaterThan(SCHEMA_TOKEN_BUDGET / 2);
    }
    // Only the super admin may open the platform's tenants page.
    expect(context.summary("admin").text).not.toContain("admin-tenants");
    expect(context.summary("super").text).toContain("## admin-tenants");
    expect(context.summary("super").pages).toBe(context.summary("admin").pages + 1);
  });

  it("names the ledger's entity, fields with their types, filters with their options, metrics and relations", () => {
    const text = new SchemaContext(catalog).summary("admin").text;
    const section = text.slice(
      text.indexOf("## agent-turns"),
      text.indexOf("\n## ", text.indexOf("## agent-turns") + 1),
    );
    expect(section).toContain('"Usage ledger" /dev/agent/turns');
    expect(section).toContain("entity: turn");
    expect(section).toMatch(
      /fields: startedAt:datetime, .*servedModel:text, .*cost:money, latencyMs:duration/,
    );
    for (const filter of ledger.filters!) expect(section).toContain(`${filter.field}:${filter.type}`);
    // A select filter lists the schema's own options (a new source shows up without a code change).
    const source = ledger.filters!.find((f) => f.field === "source");
    const options = source?.type === "select" ? source.options.map((o) => o.value) : [];
    expect(options).toContain("drawer");
    expect(section).toContain(`source:select(${options.join("|")})`);
    expect(section).toContain("segments: status=success|failed");
    expect(section).toContain("cost=sum(cost) money");
    expect(section).toContain("row replay→/dev/agent/audit/{id}");
    expect(section).toContain("prompt→/dev/agent/prompts/{promptName}?v={promptVersion}");
    // The cost dashboard's charts, and the tools that read the pages.
    expect(text).toContain("costByModel=servedModel→sum(cost)");
    expect(text).toContain("governance_chart");
    // One tenant per turn: the super admin's tenant column is not described.
    expect(text).not.toContain("tenantName");
  });

  it("drops the least important detail first, deterministically, when the budget is small", () => {
    const full = new SchemaContext(catalog, 100_000).summary("admin");
    const tight = new SchemaContext(catalog, 900).summary("admin");
    expect(tight.tokens).toBeLessThanOrEqual(900);
    expect(tight.text).toBe(new SchemaContext(catalog, 900).summary("admin").text);
    expect(full.text).toContain("Every turn: who asked");
    expect(tight.text).not.toContain("Every turn: who asked");
    // Filters survive longer than descriptions, options and field lists.
    expect(tight.text).toContain("filters: servedModel:text");
    const tiny = new SchemaContext(catalog, 300).summary("admin");
    expect(tiny.tokens).toBeLessThanOrEqual(300);
    expect(tiny.pages).toBeLessThan(full.pages);
  });

  it("is built once per viewer", () => {
    const context = new SchemaContext(catalog);
    expect(context.summary("admin")).toBe(context.summary("admin"));
  });
});

describe("the governance tools' pages and links", () => {
  it("link a page the way its filter bar writes the URL, and carry the cost page's filters to the ledger", () => {
    expect(pageHref(ledger, { servedModel: "gpt-4.1", "startedAt.from": "2026-03-08" }, "failed")).toBe(
      "/dev/agent/turns?segment=failed&f.servedModel=gpt-4.1&f.startedAt.from=2026-03-08",
    );
    expect(pageHref(catalog.schemas.get("eval-runs")!, { dataset: "smoke" })).toBe(
      "/dev/agent/evals?runs.f.dataset=smoke",
    );
    expect(rowsFilters(cost, ledger, { "day.from": "2026-03-08", servedModel: "gpt", user: "a@b" })).toEqual({
      filters: { "startedAt.from": "2026-03-08", servedModel: "gpt", user: "a@b" },
      dropped: [],
    });
  });

  it("turn quick ranges into whole UTC days (days) or minutes (hours)", () => {
    const now = new Date("2026-03-15T10:42:31.500Z");
    expect(rangeStart("1h", now)).toBe("2026-03-15T09:42:00Z");
    expect(rangeStart("24h", now)).toBe("2026-03-14T10:42:00Z");
    expect(rangeStart("7d", now)).toBe("2026-03-08");
    expect(rangeStart("30d", now)).toBe("2026-02-13");
    expect(rangeStart("month", now)).toBe("2026-03-01");
  });

  it("are for admins only and take only the pages' keys, never a tenant", () => {
    const tools = governanceToolSet(catalog).tools();
    expect(tools.map((t) => t.name)).toEqual([
      "governance_query",
      "governance_metrics",
      "governance_chart",
      "governance_runs",
    ]);
    for (const tool of tools) {
      expect(tool.roles).toEqual(["admin"]);
      const properties = tool.schema.parameters.properties as Record<string, { enum?: string[] }>;
      expect(Object.keys(properties)).not.toContain("tenantId");
      // governance_runs reads the Runs page only, so it takes no page.
      expect(properties.page?.enum ?? []).not.toContain("admin-tenants");
    }
    const query = tools[0]!.schema.parameters.properties as Record<string, { enum?: string[] }>;
    expect(query.page!.enum).toEqual(
      expect.arrayContaining([
        "agent-turns",
        "agent-runs",
        "agent-audit",
        "agent-cost",
        "agent-prompts",
        "eval-runs",
      ]),
    );
    // The Runs page is described by governance_runs, so the schema context spends no budget on it.
    expect(new SchemaContext(catalog).summary("admin").text).not.toContain("## agent-runs");
    expect(tools.find((t) => t.name === "governance_runs")!.schema.description).toContain(
      "x-tollgate-run-id",
    );
  });

  it("let the offline model read 'this week' and 'who used it' as the chart tool's range and drill-down", () => {
    const chart = governanceToolSet(catalog)
      .tools()
      .find((t) => t.name === "governance_chart")!;
    expect(argsFor(chart.schema, "which model cost us most this week, and who used it?")).toEqual({
      range: "7d",
      drillBy: "user",
    });
    expect(argsFor(chart.schema, "what did we spend this month?")).toEqual({ range: "month" });
  });
});
