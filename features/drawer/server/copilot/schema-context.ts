import "server-only";
import type { PageSchema } from "@/features/admin-tables/contracts";
import type { PageCatalog } from "@/features/admin-tables/server";
import { governedPages, PAGE_PLACES } from "./pages";
import { GOVERNANCE_TOOLS } from "./tools";

/** Who the summary is for: a tenant admin, or the platform super admin (who also has the platform's pages). */
export type SchemaViewer = "admin" | "super";

export type SchemaSummary = { text: string; pages: number; tokens: number };

/** About 1,500 tokens of the model's context, at the usual ~4 characters a token. */
export const SCHEMA_TOKEN_BUDGET = 1_500;
export const estimateTokens = (text: string) => Math.ceil(text.length / 4);

/**
 * What the summary may leave out, least important first: each step applies to every page, and the summary takes
 * the first level that fits the budget (then, if none does, keeps the first pages whole and names the rest).
 */
const LEVELS = [
  {},
  { detailFields: false },
  { detailFields: false, descriptions: false },
  { detailFields: false, descriptions: false, options: false },
  { detailFields: false, descriptions: false, options: false, hiddenColumns: false },
  { detailFields: false, descriptions: false, options: false, hiddenColumns: false, textTypes: false },
  {
    detailFields: false,
    descriptions: false,
    options: false,
    hiddenColumns: false,
    textTypes: false,
    aggregates: false,
  },
  {
    detailFields: false,
    descriptions: false,
    options: false,
    hiddenColumns: false,
    textTypes: false,
    aggregates: false,
    fields: false,
  },
] as const;
type Level = Partial<
  Record<
    "detailFields" | "descriptions" | "options" | "hiddenColumns" | "textTypes" | "aggregates" | "fields",
    false
  >
>;

/**
 * The schema context enricher: the page schemas a viewer may open, summarised for the model (entity, fields with
 * their cell types, filters with their options, segments, metrics, charts, and the links between pages) within
 * a token budget. The schemas are fixed at start, so each viewer's summary is built once.
 */
export class SchemaContext {
  private readonly cache = new Map<SchemaViewer, SchemaSummary>();
  constructor(
    private readonly catalog: PageCatalog,
    private readonly budget = SCHEMA_TOKEN_BUDGET,
  ) {}

  summary(viewer: SchemaViewer): SchemaSummary {
    let found = this.cache.get(viewer);
    if (!found) {
      found = summarise(
        pagesFor(this.catalog, viewer),
        governedPages(this.catalog.schemas.values()),
        this.budget,
      );
      this.cache.set(viewer, found);
    }
    return found;
  }
}

/** The pages a viewer may open in a turn (which always has a tenant): by their roles, most asked about first. */
function pagesFor(catalog: PageCatalog, viewer: SchemaViewer): PageSchema[] {
  // A tenant admin is also a prompt editor and a member of their tenant.
  const roles = new Set<string>(["admin", "editor", "member", ...(viewer === "super" ? ["super"] : [])]);
  const order = Object.keys(PAGE_PLACES);
  const rank = (key: string) => (order.includes(key) ? order.indexOf(key) : order.length);
  return [...catalog.schemas.values()]
    .filter((p) => p.roles.some((r) => roles.has(r)) && PAGE_PLACES[p.key]?.summarised !== false)
    .sort((a, b) => rank(a.key) - rank(b.key) || a.key.localeCompare(b.key));
}

const PREAMBLE = (tools: boolean) =>
  [
    "Schema context: the admin pages of this app and what their data means, for questions about this organisation's usage, cost, audit trail, prompts and evaluations.",
    tools
      ? `Read them with ${GOVERNANCE_TOOLS.join(", ")} (always in the current tenant, read-only, at most 50 rows a call); never invent numbers.`
      : null,
    "Filters: text ones match by contains; a time range is <field>.from/<field>.to (YYYY-MM-DD or ISO time). A page opens filtered at <path>?f.<filter>=<value>. Money is USD.",
    "Per page: fields (name:cell type), filters, segments, metrics, charts (dimension→measure), links (relations).",
  ]
    .filter(Boolean)
    .join("\n");

function summarise(pages: PageSchema[], governed: PageSchema[], budget: number): SchemaSummary {
  const queryable = new Set(governed.map((p) => p.key));
  const preamble = PREAMBLE(governed.length > 0);
  const render = (level: Level, list: PageSchema[]) =>
    [preamble, ...list.map((p) => pageLines(p, level, queryable.has(p.key)))].join("\n");
  for (const level of LEVELS) {
    const text = render(level, pages);
    if (estimateTokens(text) <= budget) return { text, pages: pages.length, tokens: estimateTokens(text) };
  }
  // Even the barest lines do not fit: keep the first pages and name the others.
  const barest = LEVELS[LEVELS.length - 1]!;
  for (let keep = pages.length - 1; keep > 0; keep--) {
    const text = `${render(barest, pages.slice(0, keep))}\nAlso: ${pages
      .slice(keep)
      .map((p) => p.key)
      .join(", ")}.`;
    if (estimateTokens(text) <= budget) return { text, pages: keep, tokens: estimateTokens(text) };
  }
  const text = preamble.slice(0, budget * 4);
  return { text, pages: 0, tokens: estimateTokens(text) };
}

function pageLines(page: PageSchema, level: Level, queryable: boolean): string {
  const place = PAGE_PLACES[page.key];
  const head = `## ${page.key} "${page.title.en}"${place ? ` ${place.path}` : ""}${place?.prefix ? ` (params prefixed ${place.prefix})` : ""}${queryable ? "" : " (not readable by the tools)"}`;
  const lines = [head];
  const about = [
    place ? `entity: ${place.entity} (id: ${page.idField})` : `id: ${page.idField}`,
    level.descriptions === false ? null : page.description?.en,
  ].filter(Boolean);
  lines.push(about.join(". "));
  if (level.fields !== false) lines.push(`fields: ${fieldList(page, level)}`);
  const filters = (page.filters ?? []).map((f) => {
    if (f.type === "select")
      return level.options === false
        ? `${f.field}:select`
        : `${f.field}:select(${f.options.map((o) => o.value).join("|")})`;
    return `${f.field}:${f.type}`;
  });
  if (filters.length) lines.push(`filters: ${filters.join(", ")}`);
  if (page.segments)
    lines.push(
      level.options === false
        ? `segments: ${page.segments.field}`
        : `segments: ${page.segments.field}=${page.segments.values.map((v) => v.value).join("|")}`,
    );
  if (page.metrics?.length)
    lines.push(
      `metrics: ${page.metrics
        .map((m) =>
          level.aggregates === false ? m.key : `${m.key}=${m.aggregation}(${m.measure}) ${m.format}`,
        )
        .join(", ")}`,
    );
  if (page.charts?.length)
    lines.push(
      `charts: ${page.charts
        .map((c) =>
          level.aggregates === false ? c.key : `${c.key}=${c.dimension}→${c.aggregation}(${c.measure})`,
        )
        .join(", ")}`,
    );
  const links = relations(page);
  if (links.length) lines.push(`links: ${links.join("; ")}`);
  return lines.join("\n");
}

/** The page's columns (and, at full detail, the detail view's fields) as name:type, text as the bare name. */
function fieldList(page: PageSchema, level: Level): string {
  const seen = new Set<string>();
  const fields: { field: string; cell: string }[] = [];
  const add = (field: string, cell: string) => {
    if (seen.has(field)) return;
    seen.add(field);
    fields.push({ field, cell });
  };
  for (const c of page.columns) {
    // A turn has one tenant; the super admin's tenant column is for the platform view.
    if (c.superAdminOnly) continue;
    if (c.defaultHidden && level.hiddenColumns === false) continue;
    add(c.field, c.cell);
  }
  if (level.detailFields !== false)
    for (const section of page.detail?.sections ?? []) for (const f of section.fields) add(f.field, f.cell);
  return fields
    .map((f) => (f.cell === "text" && level.textTypes === false ? f.field : `${f.field}:${f.cell}`))
    .join(", ");
}

/** The links between pages: link cells (a column or detail field's href) and row links (a ledger row's replay). */
function relations(page: PageSchema): string[] {
  const out = new Set<string>();
  for (const c of page.columns) if (c.href) out.add(`${c.field}→${c.href}`);
  for (const section of page.detail?.sections ?? [])
    for (const f of section.fields) if (f.href) out.add(`${f.field}→${f.href}`);
  for (const l of page.rowLinks ?? []) out.add(`row ${l.key}→${l.href}`);
  return [...out];
}
