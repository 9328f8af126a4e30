import "server-only";
import {
  type FilterDef,
  filterUrlNames,
  type PageSchema,
  type TimePreset,
} from "@/features/admin-tables/contracts";

/**
 * Where each page lives in the app (a schema says what a page shows, not where it is mounted), the prefix its
 * list's URL parameters carry when it shares a page with another list, and, for a page of aggregates, the page
 * that lists the rows behind them (the cost dashboard's rows are the ledger's turns).
 */
type PagePlace = {
  path: string;
  entity: string;
  prefix?: string;
  rowsIn?: string;
  /** false: left out of the schema context, because a tool of its own (governance_runs) describes the page. */
  summarised?: false;
};

/** In order of how often admins ask about them: the schema context keeps the first when it must cut. */
export const PAGE_PLACES: Record<string, PagePlace> = {
  "agent-turns": { path: "/dev/agent/turns", entity: "turn (one model turn or API call: the usage ledger)" },
  "agent-cost": {
    path: "/dev/agent/cost",
    entity: "daily usage rollup (per day, user, source, adapter and model)",
    rowsIn: "agent-turns",
  },
  "agent-runs": {
    path: "/dev/agent/runs",
    entity: "run (the ledger's calls grouped by run id: x-tollgate-run-id, or one drawer turn)",
    summarised: false,
  },
  "agent-audit": { path: "/dev/agent/audit", entity: "audit event (a turn's ordered trail)" },
  "agent-prompts": { path: "/dev/agent/prompts", entity: "prompt (versioned, labelled)" },
  "eval-runs": { path: "/dev/agent/evals", prefix: "runs.", entity: "evaluation run" },
  "eval-datasets": { path: "/dev/agent/evals", entity: "evaluation dataset" },
  "agent-tools": { path: "/dev/agent/tools", entity: "agent tool" },
  "gateway-routing": {
    path: "/dev/admin/routing",
    entity: "routing candidate (an alias's deployment, its state and latency on this instance)",
  },
  "admin-changes": { path: "/dev/admin/changes", entity: "admin change (who changed what)" },
  "admin-members": { path: "/dev/admin/members", entity: "tenant member" },
  "admin-invitations": { path: "/dev/admin/members", prefix: "inv.", entity: "open invitation" },
  "admin-tenants": { path: "/dev/admin/tenants", entity: "tenant (platform-wide)" },
};

/**
 * The pages the governance tools read: a tenant admin's pages (roles name "admin") that have a place in the app.
 * The platform-only pages (tenants) are never among them: a tool works inside the turn's tenant.
 */
export function governedPages(schemas: Iterable<PageSchema>): PageSchema[] {
  return [...schemas].filter((p) => p.roles.includes("admin") && Object.hasOwn(PAGE_PLACES, p.key));
}

/** The filter names a page's query takes: a filter by its field and operators (a time range as .from / .to). */
export function filterNames(page: PageSchema): string[] {
  return (page.filters ?? []).flatMap(filterUrlNames);
}

export const timeFilter = (page: PageSchema): Extract<FilterDef, { type: "daterange" }> | undefined =>
  (page.filters ?? []).find((f): f is Extract<FilterDef, { type: "daterange" }> => f.type === "daterange");

/**
 * The link that opens a page as its own filter bar would: `f.<filter>=value` (and `segment`), under the list's
 * prefix, in a stable order (features/admin-tables/components/use-page-query.ts reads it back).
 */
export function pageHref(
  page: PageSchema,
  filters: Record<string, string>,
  segment?: string | null,
): string | null {
  const place = PAGE_PLACES[page.key];
  if (!place) return null;
  const prefix = place.prefix ?? "";
  const params = new URLSearchParams();
  if (segment) params.set(`${prefix}segment`, segment);
  for (const name of Object.keys(filters).sort())
    if (filters[name]) params.set(`${prefix}f.${name}`, filters[name]!);
  const search = params.toString();
  return search ? `${place.path}?${search}` : place.path;
}

/**
 * An aggregate page's filters as the filters of the page listing its rows: a filter of the same name carries
 * over, the time range becomes that page's time range, and what the rows page cannot filter by is dropped
 * (and named, so a link never claims more than it shows).
 */
export function rowsFilters(
  from: PageSchema,
  to: PageSchema,
  filters: Record<string, string>,
): { filters: Record<string, string>; dropped: string[] } {
  const fromTime = timeFilter(from)?.field;
  const toTime = timeFilter(to)?.field;
  const names = new Set(filterNames(to));
  const out: Record<string, string> = {};
  const dropped: string[] = [];
  for (const [name, value] of Object.entries(filters)) {
    const bound = name.match(/^(.+)\.(from|to)$/);
    const target = bound && bound[1] === fromTime && toTime ? `${toTime}.${bound[2]}` : name;
    if (names.has(target)) out[target] = value;
    else dropped.push(name);
  }
  return { filters: out, dropped };
}

/** The quick time ranges the pages offer (schema TimePreset), as the tools' `range`. */
export const TIME_RANGES = ["1h", "24h", "7d", "30d", "month"] as const satisfies readonly TimePreset[];
export type TimeRange = (typeof TIME_RANGES)[number];

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const isoMinute = (ms: number) =>
  new Date(Math.floor(ms / 60_000) * 60_000).toISOString().replace(/\.\d{3}Z$/, "Z");
const utcDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * A quick range as the `.from` of a time filter. Hours are instants (to the minute, like the pages' presets);
 * days and the month are whole UTC days (a date), so the cost dashboard's daily rollups and the ledger's turns
 * cover exactly the same rows and a link to the ledger shows what the answer counted.
 */
export function rangeStart(range: TimeRange, now: Date): string {
  const ms = now.getTime();
  switch (range) {
    case "1h":
      return isoMinute(ms - HOUR);
    case "24h":
      return isoMinute(ms - DAY);
    case "7d":
      return utcDate(ms - 7 * DAY);
    case "30d":
      return utcDate(ms - 30 * DAY);
    case "month":
      return `${utcDate(ms).slice(0, 8)}01`;
  }
}

export const RANGE_WORDS: Record<TimeRange, string> = {
  "1h": "the last hour",
  "24h": "the last 24 hours",
  "7d": "the last 7 days",
  "30d": "the last 30 days",
  month: "this month",
};
