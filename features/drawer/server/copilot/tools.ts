import "server-only";
import { z } from "zod";
import type { ChartDef, Format, PageSchema, Row, SeriesResult } from "@/features/admin-tables/contracts";
import type { OpenedPage, PageCatalog } from "@/features/admin-tables/server";
import { withCards } from "@/lib/agent/cards";
import { defineTool, StaticToolSet, type Tool, type ToolContext } from "@/lib/agent/tool";
import type { TenantAccess, UserContext } from "@/lib/auth/users";
import { AppError } from "@/lib/core/errors/app-error";
import { formatMoney } from "@/lib/core/format/money";
import type { AgentCardInput } from "@/lib/turns/cards";
import { answerColumns, CARD_TYPE, type Cell, cellValue, FORMAT_TYPE } from "./cells";
import { toolPageQuery } from "./page-query";
import {
  filterNames,
  governedPages,
  PAGE_PLACES,
  pageHref,
  RANGE_WORDS,
  rowsFilters,
  TIME_RANGES,
  type TimeRange,
  timeFilter,
} from "./pages";

export const GOVERNANCE_TOOLS = ["governance_query", "governance_metrics", "governance_chart"] as const;
/** A compact answer stays well under the loop's 8,000-character cut, so the model never reads half a row. */
const RESULT_BUDGET = 6_000;

export type GovernanceToolOptions = { now?: () => Date };

/**
 * Read-only tools over the admin pages, derived from their schemas: each page's filters, metrics and charts, read
 * through the page's own provider with the routes' query parser, so an answer has the page's numbers. Only a tenant
 * admin is offered them (roles), and each call re-checks: its scope is built from the turn (its tenant, never the
 * platform), never from the arguments, which name only the page's own filters.
 */
export function governanceToolSet(catalog: PageCatalog, options: GovernanceToolOptions = {}): StaticToolSet {
  const now = options.now ?? (() => new Date());
  const pages = new Map(governedPages(catalog.schemas.values()).map((p) => [p.key, p]));
  const open = (key: string, ctx: ToolContext) => openForTurn(catalog, pages, key, ctx);
  const tools = [
    queryTool(pages, open, now),
    metricsTool(pages, open, now),
    chartTool(catalog, pages, open, now),
  ].filter((t): t is Tool => t !== null);
  return new StaticToolSet("governance", tools);
}

type Open = (key: string, ctx: ToolContext) => OpenedPage;

/**
 * The page and its provider as the turn's user may read it: the same gate as the page's route (PageCatalog.open),
 * for the turn's tenant and role. Never the platform view: the super admin's turn is in the tenant they chose.
 */
function openForTurn(
  catalog: PageCatalog,
  pages: Map<string, PageSchema>,
  key: string,
  ctx: ToolContext,
): OpenedPage {
  if (ctx.role !== "admin") throw new AppError("forbidden", "the governance tools are for tenant admins");
  if (!pages.has(key))
    throw new AppError("not_found", `unknown page "${key}"; pages: ${[...pages.keys()].join(", ")}`);
  const access: TenantAccess = { id: ctx.tenantId, name: "", slug: "", role: ctx.role, promptEditor: true };
  const auth: UserContext = {
    user: { id: ctx.userId, email: "", name: "", isSuperAdmin: false, sessionEpoch: 0 },
    tenants: [access],
    tenant: access,
    role: ctx.role,
  };
  const opened = catalog.open(key, auth);
  return { ...opened, ctx: { tenantId: ctx.tenantId, superAdmin: false } };
}

const enumOf = (values: string[]) => z.enum(values as [string, ...string[]]);

const filtersParam = z
  .record(z.string().max(100), z.union([z.string().max(200), z.number()]))
  .refine((f) => Object.keys(f).length <= 20, "at most 20 filters")
  .optional()
  .describe(
    "The page's own filters by name (the schema context lists them): text filters match by contains, select filters take one of their options, a time range is <field>.from / <field>.to (YYYY-MM-DD or an ISO time). Any other name is refused.",
  );
const rangeParam = z
  .enum(TIME_RANGES)
  .optional()
  .describe(
    "A quick time range on the page's time filter: 1h, 24h, 7d (this week), 30d, month (since the 1st). 7d, 30d and month are whole UTC days.",
  );
const segmentParam = z
  .string()
  .max(100)
  .optional()
  .describe("One of the page's segments (e.g. the ledger's status: success, failed, stopped, limit)");

function scopeWords(range: TimeRange | undefined, page: PageSchema, filters: Record<string, string>): string {
  if (range) return RANGE_WORDS[range];
  const time = timeFilter(page)?.field;
  const from = time && filters[`${time}.from`];
  const to = time && filters[`${time}.to`];
  if (from && to) return `${from} to ${to}`;
  if (from) return `since ${from}`;
  if (to) return `until ${to}`;
  return "all time";
}

/** How many of the first rows fit the answer's budget beside the rest of it (at least one). */
function rowsThatFit(rest: Record<string, unknown>, rows: unknown[]): number {
  let n = rows.length;
  while (n > 1 && JSON.stringify({ ...rest, rows: rows.slice(0, n) }).length > RESULT_BUDGET)
    n = Math.max(1, Math.floor(n * 0.8));
  return n;
}

function queryTool(pages: Map<string, PageSchema>, open: Open, now: () => Date): Tool | null {
  const keys = [...pages.keys()];
  if (!keys.length) return null;
  const fallback = pages.has("agent-turns") ? "agent-turns" : keys[0]!;
  return defineTool({
    name: "governance_query",
    description:
      "Read rows of one of this organisation's admin pages (the usage ledger agent-turns, the audit trail agent-audit, daily cost rollups agent-cost, prompts, evaluation runs and datasets, tools, admin changes, members) in the signed-in admin's tenant, through the page's own data source. Filter with the page's filters; at most 50 rows a call, `cursor` from the last answer reads on. Answers rows, the total count and a link to the page with the same filters.",
    category: "governance",
    // Ledger rows hold what API callers wrote (prompts, endUser, tags): text others control.
    readsOutsideText: true,
    roles: ["admin"],
    keywords: ["ledger", "usage ledger", "audit trail", "recent turns", "admin changes", "evaluation runs"],
    parameters: z.object({
      page: enumOf(keys).default(fallback).describe("The page to read"),
      filters: filtersParam,
      range: rangeParam,
      segment: segmentParam,
      sort: z.string().max(100).optional().describe("field:asc or field:desc, on a sortable column"),
      limit: z.number().int().min(1).max(50).default(20).describe("Rows to return, at most 50"),
      cursor: z
        .string()
        .max(2000)
        .optional()
        .describe("nextCursor from the previous answer, for the next rows"),
      columns: z
        .array(z.string().max(100))
        .max(20)
        .optional()
        .describe("Columns to return (the page's column fields); default: the page's default columns"),
    }),
    execute: async ({ page: key, columns, ...args }, ctx) => {
      const { page, provider, ctx: scope } = open(key, ctx);
      const { query, filters } = toolPageQuery(page, args, now());
      const shown = answerColumns(page, columns);
      const compact = (rows: Row[]) =>
        rows.map((row) => {
          const out: Record<string, Cell> = { [page.idField]: cellValue(row[page.idField], "text") };
          for (const c of shown) out[c.field] = cellValue(row[c.field], CARD_TYPE[c.cell]!);
          return out;
        });
      let read = await provider.rows(scope, query);
      const { count, approximate } = await provider.count(scope, query);
      const link = pageHref(page, filters, args.segment);
      const head = {
        page: page.key,
        scope: scopeWords(args.range, page, filters),
        filters,
        ...(args.segment ? { segment: args.segment } : {}),
        total: count,
        ...(approximate ? { totalIsAtLeast: true } : {}),
        link,
      };
      let rows = compact(read.rows);
      const fit = rowsThatFit(head, rows);
      // Fewer rows than asked for fit: read that many again, so the cursor continues right after the last shown.
      if (fit < rows.length) {
        read = await provider.rows(scope, { ...query, limit: fit });
        rows = compact(read.rows);
      }
      const result = {
        ...head,
        rows,
        nextCursor: read.nextCursor,
        ...(fit < query.limit && read.nextCursor
          ? { note: `${fit} rows fit in one answer: ask for fewer columns, or read on with nextCursor` }
          : {}),
      };
      const card: AgentCardInput = {
        kind: "table",
        title: `${page.title.en} · ${result.scope}`,
        columns: shown
          .slice(0, 20)
          .map((c) => ({ key: c.field, label: c.label.en, type: CARD_TYPE[c.cell]! })),
        rows,
        ...(link ? { link: { label: `Open ${page.title.en} with these filters`, href: link } } : {}),
      };
      return withCards(result, card);
    },
  });
}

function metricsTool(pages: Map<string, PageSchema>, open: Open, now: () => Date): Tool | null {
  const keys = [...pages.values()].filter((p) => p.metrics?.length).map((p) => p.key);
  if (!keys.length) return null;
  const fallback = keys.includes("agent-turns") ? "agent-turns" : keys[0]!;
  return defineTool({
    name: "governance_metrics",
    description:
      "The totals of a page's metric cards for a set of filters, exactly as the page shows them: e.g. the usage ledger's requests, tokens and total cost (agent-turns), or the cost rollups' (agent-cost). Money is USD, exact.",
    category: "governance",
    // Ledger rows hold what API callers wrote (prompts, endUser, tags): text others control.
    readsOutsideText: true,
    roles: ["admin"],
    keywords: ["total cost", "totals", "total", "metrics", "how many requests", "tokens used"],
    parameters: z.object({
      page: enumOf(keys).default(fallback).describe("A page with metric cards"),
      filters: filtersParam,
      range: rangeParam,
      segment: segmentParam,
    }),
    execute: async ({ page: key, ...args }, ctx) => {
      const { page, provider, ctx: scope } = open(key, ctx);
      const { query, filters } = toolPageQuery(page, args, now());
      const metrics = page.metrics ?? [];
      const values = await provider.metrics(scope, query, metrics);
      const link = pageHref(page, filters, args.segment);
      const scopeText = scopeWords(args.range, page, filters);
      const result = {
        page: page.key,
        scope: scopeText,
        filters,
        ...(args.segment ? { segment: args.segment } : {}),
        metrics: metrics.map((m) => ({
          metric: m.key,
          label: m.label.en,
          value: cellValue(values[m.key], FORMAT_TYPE[m.format]),
          ...(m.format === "money" ? { unit: "USD" } : {}),
        })),
        link,
      };
      const card: AgentCardInput = {
        kind: "kv",
        title: `${page.title.en} · ${scopeText}`,
        items: metrics.map((m) => ({ label: m.label.en, value: readable(values[m.key], m.format) })),
      };
      const links: AgentCardInput[] = link
        ? [{ kind: "links", links: [{ label: `Open ${page.title.en} with these filters`, href: link }] }]
        : [];
      return withCards(result, card, ...links);
    },
  });
}

/** A value for reading: money as the pages print it, "unknown" for a sum of money with no priced row. */
function readable(value: unknown, format: Format): Cell {
  if (format === "money") return formatMoney(value, { empty: "unknown" });
  return cellValue(value, FORMAT_TYPE[format]);
}

type Point = { label: string; value: number | string };

function chartTool(
  catalog: PageCatalog,
  pages: Map<string, PageSchema>,
  open: Open,
  now: () => Date,
): Tool | null {
  const charted = [...pages.values()].filter((p) => p.charts?.length);
  if (!charted.length) return null;
  const chartKeys = [...new Set(charted.flatMap((p) => p.charts!.map((c) => c.key)))];
  // What a chart's top item can be broken down by: the dimensions of the pages' other charts (not time).
  const dimensions = [
    ...new Set(
      charted.flatMap((p) =>
        p.charts!.map((c) => c.dimension).filter((d) => timeFilter(p)?.field !== d && d !== "day"),
      ),
    ),
  ];
  // Most questions about charts are about spend.
  const fallback = pages.has("agent-cost") ? "agent-cost" : charted[0]!.key;
  const chartList = charted
    .map((p) => `${p.key}: ${p.charts!.map((c) => `${c.key} (${c.title.en})`).join(", ")}`)
    .join("; ");
  return defineTool({
    name: "governance_chart",
    description: `A page's chart as data, top items first: ${chartList}. With drillBy, the top item is also broken down by another dimension, through the page's chart by it filtered to that item: chart=costByModel with drillBy=user answers "which model cost most, and who used it?" in one call. Answers the points, the total, and links: the page with these filters and the ledger's turns behind the top item.`,
    category: "governance",
    // Ledger rows hold what API callers wrote (prompts, endUser, tags): text others control.
    readsOutsideText: true,
    roles: ["admin"],
    keywords: ["cost", "spend", "spent", "who used", "by model", "most expensive", "breakdown", "chart"],
    parameters: z.object({
      page: enumOf(charted.map((p) => p.key))
        .default(fallback)
        .describe("A page with charts"),
      chart: enumOf(chartKeys).optional().describe("One of the page's charts; default: its first"),
      filters: filtersParam,
      range: rangeParam,
      segment: segmentParam,
      drillBy: enumOf(dimensions)
        .optional()
        .describe("Break the top item down by this dimension (e.g. user: who used the top model)"),
    }),
    execute: async ({ page: key, chart: chartKey, drillBy, ...args }, ctx) => {
      const { page, provider, ctx: scope } = open(key, ctx);
      const charts = page.charts ?? [];
      const chart = chartKey ? charts.find((c) => c.key === chartKey) : charts[0];
      if (!chart)
        throw new AppError(
          "validation_failed",
          `page ${page.key} has no chart "${chartKey}"; its charts are: ${charts.map((c) => c.key).join(", ")}`,
        );
      const { query, filters } = toolPageQuery(page, args, now());
      const series = await provider.series(scope, query, chart);
      const total = await totalOf(page, chart, async (metric) => {
        const values = await provider.metrics(scope, query, [metric]);
        return values[metric.key] ?? null;
      });
      const top = series.points[0];
      const drill =
        drillBy && top
          ? await drillDown(page, chart, drillBy, top, filters, (drillFilters, c) =>
              provider.series(
                scope,
                toolPageQuery(page, { ...args, range: undefined, filters: drillFilters }, now()).query,
                c,
              ),
            )
          : null;
      const rowsPage = rowsPageOf(catalog, page);
      const topFilters = top ? { ...filters, [chart.dimension]: top.label } : filters;
      const pageLink = pageHref(page, filters, args.segment);
      const rowsLink =
        top && rowsPage && filterNames(page).includes(chart.dimension)
          ? pageHref(rowsPage, rowsFilters(page, rowsPage, topFilters).filters)
          : null;
      const scopeText = scopeWords(args.range, page, filters);
      const label = labelsOf(page);
      const points = series.points.map((p) => pointRow(chart, p));
      const result = {
        page: page.key,
        chart: chart.key,
        scope: scopeText,
        filters,
        summary: chartSummary({ page, chart, scopeText, series, total, drill, rowsLink, rowsPage }),
        points,
        ...(total !== null ? { total: cellValue(total, FORMAT_TYPE[chart.format]) } : {}),
        ...(drill ? { drill: drill.result } : {}),
        links: { page: pageLink, ...(rowsLink ? { rows: rowsLink } : {}) },
      };
      const cards: AgentCardInput[] = [
        {
          kind: "table",
          title: `${chart.title.en} · ${scopeText}`,
          columns: [
            { key: chart.dimension, label: label(chart.dimension), type: "text" },
            { key: chart.measure, label: label(chart.measure), type: FORMAT_TYPE[chart.format] },
          ],
          rows: points,
          ...(pageLink
            ? { link: { label: `Open ${page.title.en} with these filters`, href: pageLink } }
            : {}),
        },
      ];
      if (drill) {
        const link = rowsLink ?? pageHref(page, drill.filters, args.segment);
        cards.push({
          kind: "table",
          title: `${drill.chart.title.en} · ${label(chart.dimension)}: ${top!.label} · ${scopeText}`,
          columns: [
            { key: drill.chart.dimension, label: label(drill.chart.dimension), type: "text" },
            {
              key: drill.chart.measure,
              label: label(drill.chart.measure),
              type: FORMAT_TYPE[drill.chart.format],
            },
          ],
          rows: drill.points,
          ...(link
            ? {
                link: {
                  label: rowsLinkLabel(rowsPage ?? page, label(chart.dimension), top!.label),
                  href: link,
                },
              }
            : {}),
        });
      } else if (rowsLink && rowsPage) {
        cards.push({
          kind: "links",
          links: [{ label: rowsLinkLabel(rowsPage, label(chart.dimension), top!.label), href: rowsLink }],
        });
      }
      return withCards(result, ...cards);
    },
  });
}

const rowsLinkLabel = (rowsPage: PageSchema, dimension: string, item: string) =>
  `Open the ${rowsPage.title.en.toLowerCase()} for ${dimension.toLowerCase()} ${item}`;

const pointRow = (chart: ChartDef, p: Point): Record<string, Cell> => ({
  [chart.dimension]: p.label,
  [chart.measure]: cellValue(p.value, FORMAT_TYPE[chart.format]),
});

/** A field's name as the page labels it: its filter, else its column, else a metric over it, else the field. */
function labelsOf(page: PageSchema): (field: string) => string {
  return (field) =>
    page.filters?.find((f) => f.field === field)?.label.en ??
    page.columns.find((c) => c.field === field)?.label.en ??
    page.metrics?.find((m) => m.measure === field)?.label.en ??
    field;
}

/** The page's own metric for the chart's measure (a summed chart's whole), when the page has one. */
async function totalOf(
  page: PageSchema,
  chart: ChartDef,
  read: (metric: NonNullable<PageSchema["metrics"]>[number]) => Promise<number | string | null>,
): Promise<number | string | null> {
  if (chart.aggregation !== "sum") return null;
  const metric = page.metrics?.find((m) => m.measure === chart.measure && m.aggregation === "sum");
  return metric ? read(metric) : null;
}

/** The page that lists the rows behind an aggregate page (the ledger behind the cost rollups), if any. */
function rowsPageOf(catalog: PageCatalog, page: PageSchema): PageSchema | null {
  const key = PAGE_PLACES[page.key]?.rowsIn;
  return key ? (catalog.schemas.get(key) ?? null) : page;
}

type Drill = {
  chart: ChartDef;
  filters: Record<string, string>;
  points: Record<string, Cell>[];
  result: Record<string, unknown>;
};

/**
 * The top item of a chart broken down by another dimension: the page's chart by that dimension (the one with
 * the same measure if there is one), with the page's filter for the first chart's dimension set to the item.
 */
async function drillDown(
  page: PageSchema,
  chart: ChartDef,
  by: string,
  top: Point,
  filters: Record<string, string>,
  series: (filters: Record<string, string>, chart: ChartDef) => Promise<SeriesResult>,
): Promise<Drill> {
  const byCharts = (page.charts ?? []).filter((c) => c.dimension === by);
  const second = byCharts.find((c) => c.measure === chart.measure) ?? byCharts[0];
  if (!second)
    throw new AppError(
      "validation_failed",
      `page ${page.key} has no chart by "${by}"; its charts are by: ${[...new Set((page.charts ?? []).map((c) => c.dimension))].join(", ")}`,
    );
  if (!filterNames(page).includes(chart.dimension))
    throw new AppError(
      "validation_failed",
      `${chart.key}'s items cannot be broken down: page ${page.key} has no "${chart.dimension}" filter`,
    );
  const drillFilters = { ...filters, [chart.dimension]: top.label };
  const points = (await series(drillFilters, second)).points.map((p) => pointRow(second, p));
  const result: Record<string, unknown> = {
    chart: second.key,
    for: { [chart.dimension]: top.label },
    points,
  };
  return { chart: second, filters: drillFilters, points, result };
}

/** One sentence a reader (or the offline model) can answer with: the top item, its share, who is behind it. */
function chartSummary(input: {
  page: PageSchema;
  chart: ChartDef;
  scopeText: string;
  series: SeriesResult;
  total: number | string | null;
  drill: Drill | null;
  rowsLink: string | null;
  rowsPage: PageSchema | null;
}): string {
  const { page, chart, scopeText, series, total, drill, rowsLink } = input;
  const label = labelsOf(page);
  const fmt = (value: unknown, format: Format) =>
    format === "money" ? formatMoney(value) : String(cellValue(value, FORMAT_TYPE[format]));
  const top = series.points[0];
  if (!top) return `${chart.title.en}: nothing recorded for ${scopeText}.`;
  const next = series.points
    .slice(1, 4)
    .map((p) => `${p.label} (${fmt(p.value, chart.format)})`)
    .join(", ");
  const parts = [
    `${chart.title.en}, ${scopeText}: ${top.label} is first with ${fmt(top.value, chart.format)}${
      total !== null ? ` of ${fmt(total, chart.format)} in all` : ""
    }${next ? `; then ${next}${series.points.length > 4 ? ", …" : ""}` : ""}.`,
  ];
  if (drill) {
    const who = drill.points
      .slice(0, 5)
      .map((p) => `${p[drill.chart.dimension]} (${fmt(p[drill.chart.measure], drill.chart.format)})`)
      .join(", ");
    parts.push(
      who
        ? `${drill.chart.title.en} for ${top.label}: ${who}${drill.points.length > 5 ? ", …" : ""}.`
        : `${drill.chart.title.en} for ${top.label}: nothing recorded.`,
    );
    // Text filters match by "contains": say so when the top item's name is inside another's.
    const alike = series.points
      .map((p) => p.label)
      .filter((l) => l !== top.label && l.toLowerCase().includes(top.label.toLowerCase()));
    if (alike.length)
      parts.push(
        `(The ${label(chart.dimension).toLowerCase()} filter matches by contains, so this also counts ${alike.join(", ")}.)`,
      );
  }
  if (rowsLink)
    parts.push(`[${rowsLinkLabel(input.rowsPage ?? page, label(chart.dimension), top.label)}](${rowsLink})`);
  return parts.join(" ");
}
