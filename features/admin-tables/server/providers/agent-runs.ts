import "server-only";
import { type SQL, sql } from "drizzle-orm";
import { type Database, getDb } from "@/db";
import { rowsOf } from "@/db/client";
import { TURN_SOURCES } from "@/db/schema";
import { likeContains } from "@/db/sql-text";
import {
  type ChartDef,
  type MetricDef,
  type PageProvider,
  type PageQuery,
  type ProviderContext,
  type Row,
  RUN_STATUSES,
  type RunSummary,
} from "@/features/admin-tables/contracts";
import { isNumberSuffix, parseFilterName } from "@/features/admin-tables/filter-operators";
import { AppError } from "@/lib/core/errors/app-error";
import { isUuid } from "@/lib/core/schema/uuid";
import {
  badFilterValue,
  decodeCursor,
  encodeCursor,
  invalidCursor,
  numberFilter,
  parseTimeBound,
  unknownFilter,
  uuidFilter,
} from "../query";
import { SUGGEST_WINDOW } from "../sql-provider";
import { normalize } from "../time-series";

const SORTS: Record<string, { expr: string; type: "timestamptz" | "numeric" | "integer" }> = {
  lastAt: { expr: "r.last_at", type: "timestamptz" },
  firstAt: { expr: "r.first_at", type: "timestamptz" },
  calls: { expr: "r.calls", type: "integer" },
  cost: { expr: "coalesce(r.cost, -1)", type: "numeric" },
  durationMs: { expr: "r.duration_ms", type: "integer" },
  inputTokens: { expr: "r.input_tokens", type: "numeric" },
  outputTokens: { expr: "r.output_tokens", type: "numeric" },
};

const MEASURES: Record<string, string> = {
  calls: "r.calls",
  toolCalls: "r.tool_calls",
  inputTokens: "r.input_tokens",
  outputTokens: "r.output_tokens",
  cost: "r.cost",
  durationMs: "r.duration_ms",
};

/** The runs' totals a number filter compares (a run without a price has a null cost and drops out). */
const RUN_NUMBERS: Record<string, string> = { calls: "r.calls", cost: "r.cost", durationMs: "r.duration_ms" };

const CURSOR_CHECK = {
  timestamptz: (v: string) => !Number.isNaN(Date.parse(v)) && /^\d{4}-\d\d-\d\dT/.test(v),
  numeric: (v: string) => /^-?\d{1,30}(\.\d{1,30})?$/.test(v),
  integer: (v: string) => /^-?\d{1,10}$/.test(v) && Math.abs(Number(v)) <= 2_147_483_647,
};

const COUNT_CAP = 10_000;
const EXPORT_PAGE = 1_000;

/** The tenant condition on the ledger (alias `t`): the context's tenant, or every tenant for the super admin. */
function scope(ctx: ProviderContext, tenantFilter?: string): SQL {
  if (ctx.tenantId) return sql`t.tenant_id = ${ctx.tenantId}`;
  if (!ctx.superAdmin) throw new AppError("forbidden", "choose a tenant first");
  return tenantFilter ? sql`t.tenant_id = ${tenantFilter}` : sql`true`;
}

/** The filters of a page query, split into what narrows the calls (before grouping) and the runs (after). */
type RunFilters = { calls: SQL[]; runs: SQL[] };

function runFilters(ctx: ProviderContext, q: PageQuery): RunFilters {
  const calls: SQL[] = [];
  const runs: SQL[] = [];
  const allTenants = ctx.superAdmin && !ctx.tenantId;
  const range: SQL[] = [];
  for (const [key, raw] of Object.entries(q.filters)) {
    const value = raw?.trim();
    if (!value) continue;
    const { field, suffix } = parseFilterName(key);
    // Numbers compare the runs' totals, after grouping: f.calls.gt=3, f.cost.gte=0.1&f.cost.lte=1.
    const total =
      isNumberSuffix(suffix) && Object.hasOwn(RUN_NUMBERS, field) ? RUN_NUMBERS[field] : undefined;
    if (isNumberSuffix(suffix)) {
      if (!total) throw unknownFilter(key);
      const op = { gt: sql`>`, lt: sql`<`, gte: sql`>=`, lte: sql`<=` }[suffix];
      runs.push(sql`${sql.raw(total)} ${op} ${numberFilter(key, value)}::numeric`);
      continue;
    }
    switch (key) {
      case "runId":
        calls.push(sql`t.run_id = ${value}`);
        break;
      case "status":
        if (!(RUN_STATUSES as readonly string[]).includes(value))
          throw badFilterValue(key, `must be one of: ${RUN_STATUSES.join(", ")}`);
        runs.push(sql`r.status = ${value}`);
        break;
      case "status.not":
        if (!(RUN_STATUSES as readonly string[]).includes(value))
          throw badFilterValue(key, `must be one of: ${RUN_STATUSES.join(", ")}`);
        runs.push(sql`r.status <> ${value}`);
        break;
      case "source.not":
        if (!(TURN_SOURCES as readonly string[]).includes(value))
          throw badFilterValue(key, `must be one of: ${TURN_SOURCES.join(", ")}`);
        runs.push(sql`not (r.sources @> ${JSON.stringify([value])}::jsonb)`);
        break;
      case "source":
        if (!(TURN_SOURCES as readonly string[]).includes(value))
          throw badFilterValue(key, `must be one of: ${TURN_SOURCES.join(", ")}`);
        runs.push(sql`r.sources @> ${JSON.stringify([value])}::jsonb`);
        break;
      case "startedAt.from":
      case "startedAt.to": {
        const bound = parseTimeBound(key, value);
        const at = sql`${bound.text}::timestamptz`;
        if (key.endsWith("from")) range.push(sql`s.started_at >= ${at}`);
        else
          range.push(
            bound.kind === "date"
              ? sql`s.started_at < ${at} + interval '24 hours'`
              : sql`s.started_at <= ${at}`,
          );
        break;
      }
      case "tenant":
        if (allTenants)
          calls.push(sql`t.tenant_id in (select id from tenant where name ilike ${likeContains(value)})`);
        break;
      case "tenantId":
        break;
      default:
        throw unknownFilter(key);
    }
  }
  // A run is in a time range when one of its calls started in it; its totals still count all of its calls.
  if (range.length)
    calls.push(sql`exists (select 1 from sys_agent_turn s where s.tenant_id = t.tenant_id and s.run_id = t.run_id
      and ${sql.join(range, sql` and `)})`);
  return { calls, runs };
}

/**
 * The runs of the context's tenant as a subquery `r`: each run's calls on the ledger grouped by (tenant, run id),
 * read through the partial (tenant_id, run_id, started_at) index, so calls without a run cost nothing.
 */
function runsFrom(ctx: ProviderContext, q: PageQuery): { from: SQL; where: SQL } {
  // The super admin's tenant by id (links), as on the other pages; a tenant's own view is scoped already.
  const tenantFilter = q.filters.tenantId?.trim() ? uuidFilter("tenantId", q.filters.tenantId) : undefined;
  const { calls, runs } = runFilters(ctx, q);
  const where = sql.join([scope(ctx, tenantFilter), sql`t.run_id is not null`, ...calls], sql` and `);
  const from = sql`(select t.tenant_id, t.run_id,
      min(t.started_at) as first_at,
      max(t.started_at) as last_at,
      count(*)::int as calls,
      coalesce(sum(jsonb_array_length(t.tool_trace)), 0)::int as tool_calls,
      coalesce(sum(t.input_tokens), 0)::bigint as input_tokens,
      coalesce(sum(t.output_tokens), 0)::bigint as output_tokens,
      case when bool_or(t.cost_status = 'unpriced') then null else coalesce(sum(t.cost), 0) end as cost,
      case when bool_or(t.cost_status = 'unpriced') then 'unpriced'
        when bool_or(t.cost_status = 'assumed') then 'assumed' else 'priced' end as cost_status,
      greatest(0, round(extract(epoch from (max(t.started_at + coalesce(t.latency_ms, 0) * interval '1 millisecond')
        - min(t.started_at))) * 1000))::int as duration_ms,
      case when bool_or(t.status in ('failed', 'interrupted')) then 'failed'
        when bool_or(t.status = 'running') then 'running' else 'success' end as status,
      jsonb_agg(distinct t.source) as sources
    from sys_agent_turn t where ${where}
    group by t.tenant_id, t.run_id) r`;
  return { from, where: runs.length ? sql.join(runs, sql` and `) : sql`true` };
}

const SELECT = sql`r.tenant_id::text || ':' || r.run_id as key, r.tenant_id, tn.name as tenant_name, r.run_id,
  r.first_at, r.last_at, r.calls, r.tool_calls, r.input_tokens, r.output_tokens, r.cost::text as cost, r.cost_status,
  r.duration_ms, r.status, r.sources`;

type RawRun = Record<string, unknown>;
const iso = (v: unknown) => (v instanceof Date ? v : new Date(String(v))).toISOString();

function runRow(r: RawRun): RunSummary {
  return {
    key: String(r.key),
    tenantId: String(r.tenant_id),
    tenantName: (r.tenant_name as string | null) ?? null,
    runId: String(r.run_id),
    firstAt: iso(r.first_at),
    lastAt: iso(r.last_at),
    calls: Number(r.calls),
    toolCalls: Number(r.tool_calls),
    inputTokens: Number(r.input_tokens),
    outputTokens: Number(r.output_tokens),
    cost: r.cost === null ? null : String(r.cost),
    costStatus: r.cost_status as RunSummary["costStatus"],
    durationMs: Number(r.duration_ms),
    status: r.status as RunSummary["status"],
    sources: ((r.sources as string[] | null) ?? []).slice().sort(),
  };
}

/** The sort value of a row as its cursor text. */
function cursorValue(row: RunSummary, field: string): string {
  if (field === "cost") return row.cost ?? "-1";
  const v = row[field as keyof RunSummary];
  return Array.isArray(v) ? "" : String(v ?? "");
}

/** A page of runs, keyset-paginated on (sort field, tenant/run key). */
async function runsPage(db: Database, ctx: ProviderContext, q: PageQuery, built = runsFrom(ctx, q)) {
  const sort = Object.hasOwn(SORTS, q.sort.field) ? SORTS[q.sort.field] : undefined;
  if (!sort)
    throw new AppError("validation_failed", `cannot sort by "${q.sort.field}"`, {
      fields: { sort: [`sortable: ${Object.keys(SORTS).join(", ")}`] },
    });
  const desc = q.sort.direction === "desc";
  const expr = sql.raw(sort.expr);
  const key = sql`(r.tenant_id::text || ':' || r.run_id)`;
  const conditions = [built.where];
  if (q.cursor) {
    const [value, after] = decodeCursor(q.cursor);
    if (!CURSOR_CHECK[sort.type](value)) throw invalidCursor();
    conditions.push(
      sql`(${expr}, ${key}) ${desc ? sql`<` : sql`>`} (${value}::${sql.raw(sort.type)}, ${after})`,
    );
  }
  const order = desc ? sql`${expr} desc, ${key} desc` : sql`${expr} asc, ${key} asc`;
  const raw = rowsOf<RawRun>(
    await db.execute(sql`select ${SELECT} from ${built.from} left join tenant tn on tn.id = r.tenant_id
      where ${sql.join(conditions, sql` and `)} order by ${order} limit ${q.limit + 1}`),
  );
  const rows = raw.slice(0, q.limit).map(runRow);
  const last = rows[rows.length - 1];
  const nextCursor =
    raw.length > q.limit && last ? encodeCursor([cursorValue(last, q.sort.field), last.key]) : null;
  return { rows, nextCursor };
}

/** One run of a tenant by its id, with its aggregates; null when the tenant has no call in it. */
export async function runSummary(
  db: Database,
  q: { tenantId: string | null; runId: string; superAdmin?: boolean },
): Promise<RunSummary | null> {
  const ctx: ProviderContext = { tenantId: q.tenantId, superAdmin: q.superAdmin ?? false };
  const query: PageQuery = {
    filters: { runId: q.runId },
    segment: null,
    sort: { field: "lastAt", direction: "desc" },
    cursor: null,
    limit: 1,
  };
  const { rows } = await runsPage(db, ctx, query);
  return rows[0] ?? null;
}

/**
 * The Runs page (/dev/agent/runs): the ledger grouped by run id, one row per run with its calls, tool calls,
 * tokens, cost, duration, status and sources, newest activity first. A run's calls are on the ledger page
 * (f.runId) and on its run replay.
 */
export function agentRunsProvider(database: () => Promise<Database> = getDb): PageProvider {
  return {
    async rows(ctx, q) {
      return runsPage(await database(), ctx, q);
    },
    async count(ctx, q) {
      const built = runsFrom(ctx, q);
      const [row] = rowsOf<{ n: number }>(
        await (await database()).execute(
          sql`select count(*)::int as n from (select 1 from ${built.from} where ${built.where}
            limit ${COUNT_CAP + 1}) capped`,
        ),
      );
      const n = Number(row?.n ?? 0);
      return { count: Math.min(n, COUNT_CAP), approximate: n > COUNT_CAP };
    },
    async metrics(ctx, q, metrics: MetricDef[]) {
      if (!metrics.length) return {};
      const built = runsFrom(ctx, q);
      const select = sql.join(
        metrics.map((m) => sql`${aggregate(m.measure, m.aggregation)} as ${sql.identifier(m.key)}`),
        sql`, `,
      );
      const [row] = rowsOf<Record<string, unknown>>(
        await (await database()).execute(sql`select ${select} from ${built.from} where ${built.where}`),
      );
      // A sum of money with no known value (no runs, or only unpriced ones) is unknown, not $0.00.
      return Object.fromEntries(
        metrics.map((m) => {
          const v = row?.[m.key];
          return [m.key, v === null && m.format === "money" ? null : normalize(v)];
        }),
      );
    },
    async series(ctx, q, chart: ChartDef) {
      const dimension = { status: sql`r.status`, costStatus: sql`r.cost_status` }[chart.dimension];
      if (!dimension) throw new AppError("validation_failed", `unknown chart dimension "${chart.dimension}"`);
      const built = runsFrom(ctx, q);
      const value = aggregate(chart.measure, chart.aggregation);
      const rows = rowsOf<{ label: string; value: unknown }>(
        await (await database()).execute(
          sql`select ${dimension} as label, ${value} as value from ${built.from} where ${built.where}
            group by 1 order by (${value})::numeric desc, 1 asc limit ${chart.topN ?? 50}`,
        ),
      );
      return { points: rows.map((r) => ({ label: String(r.label), value: normalize(r.value) })) };
    },
    async detail(ctx, id) {
      // A row's key (`<tenant id>:<run id>`, the super admin's view needs the tenant), or in a tenant's own view
      // the run id alone; a key naming another tenant finds nothing.
      const keyed = id.length > 37 && id[36] === ":" && isUuid(id.slice(0, 36));
      let tenantId = ctx.tenantId;
      let runId = id;
      if (keyed && (!ctx.tenantId || id.startsWith(`${ctx.tenantId}:`))) {
        tenantId = id.slice(0, 36);
        runId = id.slice(37);
      }
      if (!tenantId) return null;
      const row = await runSummary(await database(), { tenantId, runId, superAdmin: ctx.superAdmin });
      return row ? { row } : null;
    },
    async *exportRows(ctx, q) {
      const built = runsFrom(ctx, q);
      let cursor: string | null = null;
      do {
        const page: { rows: Row[]; nextCursor: string | null } = await runsPage(
          await database(),
          ctx,
          { ...q, cursor, limit: EXPORT_PAGE },
          built,
        );
        yield* page.rows;
        cursor = page.nextCursor;
      } while (cursor);
    },
    async suggest(ctx, field, q, limit) {
      if (field !== "runId") return null;
      // The newest calls only, as the ledger's suggestions: bounded work per keystroke.
      const rows = rowsOf<{ value: string }>(
        await (await database()).execute(sql`select s.run_id as value from (
            select t.run_id from sys_agent_turn t where ${scope(ctx)} and t.run_id is not null
            order by t.started_at desc limit ${SUGGEST_WINDOW}) s
          where ${q ? sql`s.run_id ilike ${likeContains(q)}` : sql`true`}
          group by s.run_id order by lower(s.run_id), s.run_id limit ${limit}`),
      );
      return rows.map((r) => ({ value: r.value, label: r.value }));
    },
  };
}

function aggregate(measure: string, aggregation: MetricDef["aggregation"]): SQL {
  if (aggregation === "count") return sql`count(*)::int`;
  const column = Object.hasOwn(MEASURES, measure) ? MEASURES[measure] : undefined;
  if (!column) throw new AppError("validation_failed", `unknown measure "${measure}"`);
  const expr = sql.raw(column);
  if (aggregation === "sum")
    return measure === "cost" ? sql`sum(${expr})::text` : sql`coalesce(sum(${expr}), 0)::text`;
  return sql`coalesce(avg(${expr}), 0)::numeric(20,2)::text`;
}
