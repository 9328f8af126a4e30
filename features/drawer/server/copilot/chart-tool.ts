// governance_chart: a page's chart as points, its top item and share, with a drill-down to the rows behind it.
import "server-only";
import { z } from "zod";
import type { ChartDef, Format, PageSchema, SeriesResult } from "@/features/admin-tables/contracts";
import type { PageCatalog } from "@/features/admin-tables/server";
import { withCards } from "@/lib/agent/cards";
import { defineTool, type Tool } from "@/lib/agent/tool";
import { AppError } from "@/lib/core/errors/app-error";
import { formatMoney } from "@/lib/core/format/money";
import type { AgentCardInput } from "@/lib/turns/cards";
import { type Cell, cellValue, FORMAT_TYPE } from "./cells";
import { toolPageQuery } from "./page-query";
import { filterNames, PAGE_PLACES, pageHref, rowsFilters, timeFilter } from "./pages";
import { enumOf, filtersParam, type Open, rangeParam, scopeWords, segmentParam } from "./tool-params";

type Point = { label: string; value: number | string };

export function chartTool(
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
