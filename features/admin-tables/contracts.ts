/** The page-schema format: each admin page is one JSON file in schemas/, validated by schemas/page.schema.json. */

export type Localized = { en: string; zh: string };
export type CellType =
  | "text"
  | "badge"
  | "badges"
  | "datetime"
  | "duration"
  | "tokens"
  | "money"
  | "json"
  | "link";
export type Format = "number" | "tokens" | "money" | "duration";
export type Aggregation = "count" | "sum" | "avg";

export type MetricDef = {
  key: string;
  label: Localized;
  measure: string;
  aggregation: Aggregation;
  format: Format;
};
export type SegmentDef = {
  field: string;
  allLabel: Localized;
  values: { value: string; label: Localized }[];
};
/** Quick time ranges beside a daterange filter; each sets f.<field>.from to an ISO time (and clears .to). */
export type TimePreset = "1h" | "24h" | "7d" | "30d" | "month";
/**
 * A filter of a page. `f.<field>=` is its own match (select: is; text: contains, or is when `exact`); `not`: the
 * server also takes `f.<field>.not=` (is not) cheaply; a `number` filter takes `.gt`, `.lt` and `.gte`+`.lte`
 * (features/admin-tables/filter-operators.ts).
 */
export type FilterDef =
  /** `suggest`: the input offers values from the page's data (GET …/suggest?field=<field>&q=). */
  | { field: string; label: Localized; type: "text"; suggest?: boolean; exact?: boolean; not?: boolean }
  | {
      field: string;
      label: Localized;
      type: "select";
      options: { value: string; label: Localized }[];
      not?: boolean;
    }
  | { field: string; label: Localized; type: "number" }
  | { field: string; label: Localized; type: "daterange"; presets?: TimePreset[] };
export type ColumnDef = {
  field: string;
  label: Localized;
  cell: CellType;
  sortable?: boolean;
  /** For `link` cells: a path with {field} placeholders, e.g. "/dev/agent/audit?turn={id}". */
  href?: string;
  /** Only shown to the platform super admin (e.g. the tenant column). */
  superAdminOnly?: boolean;
  /** Off until the viewer turns it on in the column picker (the row's detail shows it anyway). */
  defaultHidden?: boolean;
  /** The column's widest, in px: longer values are cut with "…" and shown whole on hover. */
  width?: number;
  /** Numbers (tokens, money, duration) are right-aligned unless this says otherwise. */
  align?: "left" | "right";
};
/** Display labels for a badge field's raw values, by field then value: `{ "status": { "running": {en, zh} } }`. */
export type BadgeLabels = Record<string, Record<string, Localized>>;
export type DetailDef = {
  sections: {
    title: Localized;
    fields: { field: string; label: Localized; cell: CellType; href?: string }[];
  }[];
  /** The detail also lists the row's events (e.g. a turn's audit trail) as a timeline. */
  events?: { title: Localized };
};
export type ChartDef = {
  key: string;
  title: Localized;
  type: "bar" | "line";
  dimension: string;
  measure: string;
  aggregation: Aggregation;
  format: Format;
  topN?: number;
};

/**
 * A button on each row that calls one of our API routes (disable a tenant, remove a member); the rows reload
 * after it succeeds, and a refusal shows the server's message.
 */
export type RowActionDef = {
  key: string;
  label: Localized;
  method: "POST" | "PATCH" | "DELETE";
  /** An /api/ path with {field} placeholders filled from the row, e.g. "/api/admin/tenants/{id}". */
  href: string;
  /** The JSON body, sent as is (with the input's value added). */
  body?: Record<string, unknown>;
  /** Asked before the call; {field} placeholders are filled from the row. */
  confirm?: Localized;
  /** A value typed first (e.g. a new name), sent as body[field]; `initialFrom` pre-fills it from the row. */
  input?: { field: string; label: Localized; initialFrom?: string };
  /** Offered only on rows whose `field` equals this value. */
  when?: { field: string; equals: string | number | boolean };
  tone?: "danger";
  /**
   * A checkbox instead of a button: checked when the row's `field` is true; a change sends
   * `{...body, [field]: !checked}`. Where `lockedWhen` holds (e.g. an admin, an editor by role) it is shown checked
   * and disabled, with `lockedReason` as its hint.
   */
  toggle?: {
    field: string;
    lockedWhen?: { field: string; equals: string | number | boolean };
    lockedReason?: Localized;
  };
};

/** A link on each row (and in its detail view) to a page of the app; {field} placeholders are filled from the row. */
/** A link on every row (and in its detail), or only in the detail with `detailOnly`, keeping the table narrow. */
export type RowLinkDef = { key: string; label: Localized; href: string; detailOnly?: boolean };

/** The drawer's context types (features/drawer/contracts.ts CONTEXT_TYPES; a test keeps the two lists equal). */
export type AssistantContextType = "turn" | "audit_turn" | "prompt_version" | "eval_item" | "order";

/** "Ask the assistant" in a row's detail: the row as a context item of `type`, its id from the row's `idField`. */
export type AssistantDef = { type: AssistantContextType; idField: string };

export type PageSchema = {
  key: string;
  provider: string;
  /**
   * Who may open the page: "member" (every member of the active tenant), "admin" (tenant admins of the active
   * tenant) and/or "super" (the platform super admin).
   */
  roles: ("member" | "editor" | "admin" | "super")[];
  title: Localized;
  description?: Localized;
  metrics?: MetricDef[];
  segments?: SegmentDef;
  filters?: FilterDef[];
  columns: ColumnDef[];
  /** Labels for badge values the segments and select filters do not already name. */
  badges?: BadgeLabels;
  detail?: DetailDef;
  charts?: ChartDef[];
  rowActions?: RowActionDef[];
  /** Links to another page from each row and from its detail view (e.g. a ledger row's replay). */
  rowLinks?: RowLinkDef[];
  /** The detail view's "Ask the assistant" (needs `detail`). */
  assistant?: AssistantDef;
  /** The row field that identifies a row (detail, keyset pagination). */
  idField: string;
  defaultSort: { field: string; direction: "asc" | "desc" };
  pageSize: number;
};

/** What a page query asks for; parsed from the URL by the route, the same for rows, metrics, series, count, export. */
export type PageQuery = {
  /** Filter values by URL name: `<field>` and its operators (`.not`, `.gt`, `.lt`, `.gte`, `.lte`, `.from`, `.to`). */
  filters: Record<string, string>;
  segment: string | null;
  sort: { field: string; direction: "asc" | "desc" };
  /** Opaque keyset cursor from the previous page. */
  cursor: string | null;
  limit: number;
};

/** Who asks: a tenant (scoped), or the super admin across all tenants (tenantId null, with the tenant filter). */
export type ProviderContext = { tenantId: string | null; superAdmin: boolean };

export type Row = Record<string, unknown>;

/**
 * A chart's points: by a dimension, the top N by value; over time, one point per bucket in time order, with the
 * granularity the range called for (labels are the buckets' UTC starts: "2026-03-15", "2026-03-15T14:00:00Z").
 */
export type SeriesResult = {
  /** `key`: what a label names, where the label is only its name (an API key's id), so a link can filter on it. */
  points: { label: string; value: number | string; key?: string }[];
  granularity?: "hour" | "day" | "week";
};

/** A run's status from its calls': failed if any call failed (or was interrupted), running if any runs, else success. */
export const RUN_STATUSES = ["success", "failed", "running"] as const;

/** One run: the aggregates of its calls on the ledger (the Runs page's row, the run replay's totals, the copilot's). */
export type RunSummary = {
  /** `<tenant id>:<run id>`: unique across tenants, for the super admin's view. */
  key: string;
  tenantId: string;
  tenantName: string | null;
  runId: string;
  /** When its first and its last call started (ISO). */
  firstAt: string;
  lastAt: string;
  calls: number;
  /** The tool calls in its calls' tool traces (a drawer turn's tools, an /mcp call's tool). */
  toolCalls: number;
  inputTokens: number;
  outputTokens: number;
  /** The sum of the calls' costs (exact decimal text); null when any call is unpriced (the total is unknown). */
  cost: string | null;
  costStatus: "priced" | "unpriced" | "assumed";
  /** From the first call's start to the last call's end (a running call ends at its start). */
  durationMs: number;
  status: (typeof RUN_STATUSES)[number];
  sources: string[];
};

/** A read-only, tenant-scoped data source for schema pages. */
export interface PageProvider {
  /** `asOf` (ISO): the rows come from a read replica that may lag, and hold what was committed by then. */
  rows(
    ctx: ProviderContext,
    q: PageQuery,
  ): Promise<{ rows: Row[]; nextCursor: string | null; asOf?: string }>;
  count(ctx: ProviderContext, q: PageQuery): Promise<{ count: number; approximate: boolean }>;
  metrics(
    ctx: ProviderContext,
    q: PageQuery,
    metrics: MetricDef[],
  ): Promise<Record<string, number | string | null>>;
  series(ctx: ProviderContext, q: PageQuery, chart: ChartDef): Promise<SeriesResult>;
  /** One row and, when the page has them, its events; null when it is not visible to this context. */
  detail(ctx: ProviderContext, id: string): Promise<{ row: Row; events?: Row[] } | null>;
  /** Every filtered row, in pages, for the CSV export. */
  exportRows(ctx: ProviderContext, q: PageQuery): AsyncIterable<Row>;
  /**
   * Distinct values of one filterable field that contain `q` (case-insensitive), from this context's rows
   * only, at most `limit`; null when the provider has no suggestions for that field.
   */
  suggest?(ctx: ProviderContext, field: string, q: string, limit: number): Promise<Suggestion[] | null>;
}

/** One value a filter input offers: `value` goes into the URL, `label` is what the list shows. */
export type Suggestion = { value: string; label: string };

/** The URL filter names a declared filter owns (for other features: the copilot's page tools). */
export { filterUrlNames } from "./filter-operators";
