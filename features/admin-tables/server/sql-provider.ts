import "server-only";
import { and, eq, getTableName, inArray, type SQL, sql } from "drizzle-orm";
import type { PgColumn, PgTable } from "drizzle-orm/pg-core";
import type { Database } from "@/db";
import { tenant } from "@/db/schema";
import { likeContains } from "@/db/sql-text";
import { AppError } from "@/lib/core/errors/app-error";
import type {
  ChartDef,
  MetricDef,
  PageProvider,
  PageQuery,
  ProviderContext,
  Row,
  Suggestion,
} from "../contracts";
import { isNumberSuffix, parseFilterName } from "../filter-operators";
import {
  checkCursor,
  decodeCursor,
  encodeCursor,
  numberFilter,
  parseTimeBound,
  type TimeBound,
  unknownFilter,
  uuidFilter,
} from "./query";
import { normalize, timeSeries } from "./time-series";

type Expr = SQL | PgColumn;
type Column = PgColumn;
/** A sortable field: a non-null expression and the SQL type its cursor value is cast to. */
export type SortField = { expr: Expr; type: "timestamptz" | "numeric" | "integer" | "text" };
/**
 * A time-range column. A bare expression is bounded exactly (an ISO time means that instant); `utcDay` is
 * for daily rows (rollups): a bound covers its whole UTC day, so "last 24 hours" still includes today's row.
 */
export type TimeColumn = Expr | { utcDay: Expr };

/**
 * Where a filter's suggestions come from: distinct values of `value`, from the page's own table (its tenant
 * column and joins) unless another table is named with its own tenant column. Scoped like every page query,
 * so a tenant is offered only its own values. `recent` reads only the newest rows by that expression.
 */
export type SuggestSource = {
  value: Expr;
  table?: PgTable;
  tenantColumn?: Column;
  joins?: { table: PgTable; on: SQL }[];
  recent?: Expr;
};

export type SqlProviderConfig = {
  table: PgTable;
  tenantColumn: Column;
  /** A condition every query of the page keeps (the prompts page's kind "prompt"), besides the tenant's. */
  always?: SQL;
  idColumn: Expr;
  /** The row's fields, by the names the page schema uses. */
  fields: Record<string, Expr>;
  /** Left joins for display fields (tenant names, user emails), added to row queries only. */
  joins?: { table: PgTable; on: SQL }[];
  sorts: Record<string, SortField>;
  /** f.<field>=value → a condition; an unknown f.<field> is refused with 422. */
  filters: Record<string, (value: string) => SQL | undefined>;
  /**
   * The filters that also take f.<field>.not=value: the rows the filter's condition does not hold for (null
   * included). Only where that stays cheap: a negation keeps most rows, so the newest-first walk of the page's
   * index fills a page at once; its condition is the filter's own (resolved ones included).
   */
  negatable?: readonly string[];
  /** f.<field>.gt / .lt / .gte / .lte=n → a comparison of this numeric expression (rows without a value drop out). */
  numberFilters?: Record<string, Expr>;
  /**
   * Filters whose condition needs a read first (a text matched against the few values a column holds, so the
   * query can use an equality index): their answer replaces `filters[field]`'s condition; undefined keeps it.
   */
  resolvedFilters?: Record<string, FilterResolver>;
  /**
   * Filters that can drive a page from an index of their own when it is sorted by `sort`, newest first: a filter
   * that keeps few rows spread over the whole table (thumbs down) would otherwise walk the page's index checking
   * each row. The driver's rows are read in their index's order, each joined to its row by its primary key.
   */
  drivers?: { sort: string; filters: Record<string, FilterDriver> };
  /** f.<field>.from / f.<field>.to (a day, YYYY-MM-DD, or an ISO time) → a time range on this column. */
  dateFilters: Record<string, TimeColumn>;
  segmentColumn?: Column;
  /** Filter suggestions by filter field (the super admin's tenant names are built in, as "tenant"). */
  suggestions?: Record<string, SuggestSource>;
  /** Measures for metric cards and charts: `count` counts rows, others are summed or averaged. */
  measures: Record<string, Expr>;
  /** Chart dimensions: the expression to group by and how to label it. */
  dimensions: Record<string, Expr>;
  /**
   * Chart dimensions over time (a UTC timestamp without zone), bucketed by the range's granularity; `finest` is
   * "day" where the source only has days.
   */
  times?: Record<string, { expr: Expr; finest: "hour" | "day" }>;
  detail(db: Database, ctx: ProviderContext, id: string): Promise<{ row: Row; events?: Row[] } | null>;
};

/** A config entry by a name from the URL: own keys only, so f.constructor is unknown, not Object's. */
const ownEntry = <T>(record: Record<string, T>, key: string): T | undefined =>
  Object.hasOwn(record, key) ? record[key] : undefined;

// The select builder, seen only as far as adding left joins goes (its exact type changes with each join).
type Joinable = { leftJoin(table: PgTable, on: SQL): Joinable };

const COUNT_CAP = 10_000;
const EXPORT_PAGE = 1_000;
/** Suggestions read at most this many newest rows of a large table: bounded work per keystroke. */
export const SUGGEST_WINDOW = 20_000;
/** The built-in suggestion and filter for the super admin: tenants by name (f.tenant, contains). */
export const TENANT_NAME_FILTER = "tenant";

/**
 * A page provider over one table: tenant-scoped by construction (the super admin's null tenant reads all, with
 * an optional f.tenantId), keyset pagination on (sort field, id), and separate queries for rows, count,
 * metrics and series, so the first page never waits on a count.
 */
export function sqlProvider(db: () => Promise<Database>, config: SqlProviderConfig): PageProvider {
  /** The query's conditions; `tenantKnown`: the rows come from a driver that read the tenant's own index entries. */
  const where = async (ctx: ProviderContext, q: PageQuery, tenantKnown = false) => {
    const resolved = await resolveFilters(config, await db(), ctx, q);
    const scoped = scopedWhere(config, ctx, q, resolved, tenantKnown);
    return config.always ? and(config.always, scoped) : scoped;
  };

  const sortOf = (q: PageQuery) => {
    const sort = config.sorts[q.sort.field];
    if (!sort)
      throw new AppError("validation_failed", `cannot sort by "${q.sort.field}"`, {
        fields: { sort: [`sortable: ${Object.keys(config.sorts).join(", ")}`] },
      });
    return sort;
  };

  /** One page; `condition`: the query's conditions already built (an export builds them once for every page). */
  async function page(ctx: ProviderContext, q: PageQuery, condition?: SQL) {
    const sort = sortOf(q);
    const desc = q.sort.direction === "desc";
    const cursor = q.cursor ? decodeCursor(q.cursor) : undefined;
    if (cursor) checkCursor(cursor[0], sort.type, cursor[1]);
    const after = (expr: Expr, id: Expr) =>
      cursor &&
      sql`(${expr}, ${id}) ${desc ? sql`<` : sql`>`} (${cursor[0]}::${sql.raw(sort.type)}, ${cursor[1]}::uuid)`;
    const drive = driverOf(config, ctx, q);
    if (drive) return drivenPage(ctx, q, sort.expr, drive, after);
    const conditions = [condition ?? (await where(ctx, q)), after(sort.expr, config.idColumn)];
    const rows = (await withJoins(config, (await db()).select(config.fields).from(config.table))
      .where(and(...conditions.filter((c): c is SQL => !!c)))
      .orderBy(
        desc
          ? sql`${sort.expr} desc, ${config.idColumn} desc`
          : sql`${sort.expr} asc, ${config.idColumn} asc`,
      )
      .limit(q.limit + 1)) as Row[];
    return pageOf(q, rows);
  }

  /** A page read through a filter's driver (see `drivers`): its index order is the page's sort, newest first. */
  async function drivenPage(
    ctx: ProviderContext,
    q: PageQuery,
    sortExpr: Expr,
    { driven, rest }: NonNullable<ReturnType<typeof driverOf>>,
    after: (expr: Expr, id: Expr) => SQL | undefined,
  ) {
    const [sort, id] = driven.order;
    const inner = and(await where(ctx, rest), after(sortExpr, config.idColumn));
    const rows = (await withJoins(
      config,
      drivenSelect(await db(), config, config.fields, sortExpr, driven, inner),
    )
      .where(and(driven.where, after(sort, id)))
      .orderBy(sql`${sort} desc, ${id} desc`)
      .limit(q.limit + 1)) as Row[];
    return pageOf(q, rows);
  }

  return {
    rows: page,
    async count(ctx, q) {
      // Counting stops at a cap: "10,000+" is as useful as an exact number and costs a bounded scan.
      // A count has no order: a driver serves it whatever the page's sort. Its rows are the tenant's own index
      // entries, each joined by the primary key to the turn it was written for in that tenant, so the join reads
      // the key index alone (no row, no tenant check) unless another filter needs the row.
      const drive = driverOf(config, ctx, q, true);
      const drivenSort = config.drivers && ownEntry(config.sorts, config.drivers.sort);
      const capped =
        drive && drivenSort
          ? drivenSelect(
              await db(),
              config,
              { one: sql`1` },
              drivenSort.expr,
              drive.driven,
              await where(ctx, drive.rest, true),
              { id: config.idColumn },
            )
              .where(drive.driven.where)
              .orderBy(sql`${drive.driven.order[0]} desc, ${drive.driven.order[1]} desc`)
              .limit(COUNT_CAP + 1)
              .as("capped")
          : sql`(select 1 from ${config.table} where ${(await where(ctx, q)) ?? sql`true`} limit ${COUNT_CAP + 1}) as capped`;
      const [row] = await (await db()).select({ n: sql<number>`count(*)::int` }).from(capped);
      const n = Number(row?.n ?? 0);
      return { count: Math.min(n, COUNT_CAP), approximate: n > COUNT_CAP };
    },
    async metrics(ctx, q, metrics: MetricDef[]) {
      const select = Object.fromEntries(
        metrics.map((m) => [m.key, aggregate(config, m.measure, m.aggregation, m.format === "money")]),
      );
      const [row] = await (await db())
        .select(select)
        .from(config.table)
        .where(await where(ctx, q));
      // A sum of money over rows that have no price (or no rows) is unknown, not $0.00: null, shown as "—".
      const money = new Set(metrics.filter((m) => m.format === "money").map((m) => m.key));
      return Object.fromEntries(
        Object.entries(row ?? {}).map(([k, v]) => [k, v === null && money.has(k) ? null : normalize(v)]),
      );
    },
    async series(ctx, q, chart: ChartDef) {
      const time = config.times && ownEntry(config.times, chart.dimension);
      if (time)
        return timeSeries(await db(), {
          table: config.table,
          where: await where(ctx, q),
          time: time.expr,
          value: aggregate(config, chart.measure, chart.aggregation),
          finest: time.finest,
          filter: { from: q.filters[`${chart.dimension}.from`], to: q.filters[`${chart.dimension}.to`] },
        });
      const dimension = config.dimensions[chart.dimension];
      if (!dimension) throw new AppError("validation_failed", `unknown chart dimension "${chart.dimension}"`);
      const value = aggregate(config, chart.measure, chart.aggregation);
      const base = (await db())
        .select({ label: sql<string>`coalesce(${dimension}::text, '—')`, value })
        .from(config.table);
      const condition = await where(ctx, q);
      const rows = await withJoins(config, base)
        .where(condition)
        .groupBy(sql`1`)
        // By the number the text stands for: as text, "9.44" would sort above "15.75".
        .orderBy(sql`(${value})::numeric desc`, sql`1 asc`)
        .limit(chart.topN ?? 50);
      return { points: rows.map((r) => ({ label: String(r.label), value: normalize(r.value) })) };
    },
    async detail(ctx, id) {
      return config.detail(await db(), ctx, id);
    },
    async *exportRows(ctx, q) {
      const condition = await where(ctx, q);
      let cursor: string | null = null;
      do {
        const result = await page(ctx, { ...q, cursor, limit: EXPORT_PAGE }, condition);
        yield* result.rows;
        cursor = result.nextCursor;
      } while (cursor);
    },
    async suggest(ctx, field, q, limit) {
      const source =
        field === TENANT_NAME_FILTER
          ? { table: tenant, tenantColumn: tenant.id, value: tenant.name }
          : ownEntry(config.suggestions ?? {}, field);
      if (!source) return null;
      return suggestFrom(await db(), config, source, ctx, q, limit);
    },
  };
}

/**
 * Distinct values containing `q` (case-insensitive), A to Z ignoring case: from the newest SUGGEST_WINDOW rows when the
 * source says which are newest. The tenant condition is the same as every page query's (scopeCondition).
 */
async function suggestFrom(
  db: Database,
  config: SqlProviderConfig,
  source: SuggestSource,
  ctx: ProviderContext,
  q: string,
  limit: number,
): Promise<Suggestion[]> {
  const table = source.table ?? config.table;
  const scope = scopeCondition(source.tenantColumn ?? config.tenantColumn, ctx);
  const value = sql<string | null>`(${source.value})::text`;
  // The value may be a set-returning expression (a turn's tool names), so it is tested outside, not in WHERE.
  let inner = db
    .select({ v: value.as("suggest_value") })
    .from(table)
    .where(scope)
    .$dynamic();
  const joins = source.table ? (source.joins ?? []) : (source.joins ?? config.joins ?? []);
  for (const j of joins) inner = inner.leftJoin(j.table, j.on);
  if (source.recent) inner = inner.orderBy(sql`${source.recent} desc`).limit(SUGGEST_WINDOW);
  const s = inner.as("s");
  // Grouped, not DISTINCT, so the order can ignore case whatever the database's collation.
  const rows = await db
    .select({ value: s.v })
    .from(s)
    .where(and(sql`${s.v} <> ''`, q ? sql`${s.v} ilike ${likeContains(q)}` : undefined))
    .groupBy(s.v)
    .orderBy(sql`lower(${s.v})`, s.v)
    .limit(limit);
  return rows
    .filter((r): r is { value: string } => r.value !== null)
    .map((r) => ({ value: r.value, label: r.value }));
}

/** A filter's condition found by a read first; undefined: the filter's own condition applies. */
export type FilterResolver = (db: Database, ctx: ProviderContext, value: string) => Promise<SQL | undefined>;

/**
 * The rows that drive a page for a filter's value: `from` (a table with an alias) and `where` on it, whose index
 * gives them in `order` (the sort column's and the id column's values, descending, a row possibly several times);
 * undefined where no index serves the context (the filter then stays a condition only).
 */
export type FilterDriver = (
  ctx: ProviderContext,
  value: string,
) => { from: SQL; where: SQL; order: [sort: SQL, id: SQL] } | undefined;

type Driven = ReturnType<FilterDriver> & {};

/** The query's first filter with a driver for its value under this sort, and the query without that filter. */
function driverOf(config: SqlProviderConfig, ctx: ProviderContext, q: PageQuery, anyOrder = false) {
  const sorted = q.sort.field === config.drivers?.sort && q.sort.direction === "desc";
  if (!config.drivers || !(sorted || anyOrder)) return undefined;
  for (const [key, value] of Object.entries(q.filters)) {
    const drive = value ? ownEntry(config.drivers.filters, key) : undefined;
    const driven = drive?.(ctx, value);
    if (!driven) continue;
    const { [key]: _, ...rest } = q.filters;
    return { driven, rest: { ...q, filters: rest } };
  }
  return undefined;
}

/**
 * The driver's rows, each joined laterally to its row of the table by the sort and id columns (its primary key)
 * under `condition`, distinct: a nested loop in the driver's index order that stops at the query's limit. The
 * lateral subquery (kept a subquery by its `limit 1`) is named as the table, so every field, join and condition
 * written on the table reads it. `rowFields`: the columns the subquery selects (all of them unless named).
 */
function drivenSelect<F extends Record<string, Expr>>(
  database: Database,
  config: SqlProviderConfig,
  fields: F,
  sortExpr: Expr,
  driven: Driven,
  condition: SQL | undefined,
  rowFields?: Record<string, Expr>,
) {
  const [sort, id] = driven.order;
  const row = (rowFields ? database.select(rowFields) : database.select())
    .from(config.table)
    .where(and(sql`${config.idColumn} = ${id}`, sql`${sortExpr} = ${sort}`, condition))
    .limit(1)
    .as(getTableName(config.table));
  return database.selectDistinctOn([sort, id], fields).from(driven.from).crossJoinLateral(row);
}

/** The conditions of the query's resolved filters (SqlProviderConfig.resolvedFilters), by field. */
async function resolveFilters(
  config: SqlProviderConfig,
  db: Database,
  ctx: ProviderContext,
  q: PageQuery,
): Promise<Record<string, SQL>> {
  const resolved: Record<string, SQL> = {};
  for (const [key, value] of Object.entries(q.filters)) {
    // A negation is resolved as its filter is (and negated by scopedWhere).
    const { field, suffix } = parseFilterName(key);
    const name = suffix === "not" ? field : key;
    const resolve = value && config.resolvedFilters ? ownEntry(config.resolvedFilters, name) : undefined;
    const condition = resolve ? await resolve(db, ctx, value) : undefined;
    if (condition) resolved[key] = condition;
  }
  return resolved;
}

/** The filters a page query may use on a table, and the tenant column that scopes it. */
export type QueryScope = Pick<
  SqlProviderConfig,
  "tenantColumn" | "filters" | "dateFilters" | "segmentColumn" | "negatable" | "numberFilters"
>;

/**
 * A page query's conditions: the tenant first (the super admin's null tenant reads all, with an optional
 * f.tenantId), then its filters, time ranges and segment; an unknown or bad filter is a 422 naming it.
 */
export function scopedWhere(
  config: QueryScope,
  ctx: ProviderContext,
  q: PageQuery,
  resolved: Record<string, SQL> = {},
  tenantKnown = false,
): SQL | undefined {
  const conditions: SQL[] = [];
  const scope = scopeCondition(config.tenantColumn, ctx);
  if (tenantKnown && !ctx.tenantId) throw new AppError("forbidden", "choose a tenant first");
  if (scope && !tenantKnown) conditions.push(scope);
  const allTenants = ctx.superAdmin && !ctx.tenantId;
  for (const [key, value] of Object.entries(q.filters)) {
    if (!value) continue;
    const dateMatch = key.match(/^(.+)\.(from|to)$/);
    if (dateMatch) {
      const column = ownEntry(config.dateFilters, dateMatch[1]!);
      if (!column) throw unknownFilter(key);
      conditions.push(timeCondition(column, dateMatch[2] as "from" | "to", parseTimeBound(key, value)));
      continue;
    }
    // The super admin's tenant filters: by id (links) or by name, contained (the filter bar). A tenant's own
    // admin is already scoped to one tenant, so for them these narrow nothing.
    if (key === "tenantId") {
      if (allTenants) conditions.push(eq(config.tenantColumn, uuidFilter(key, value)));
      continue;
    }
    if (key === TENANT_NAME_FILTER) {
      if (allTenants)
        conditions.push(
          inArray(
            config.tenantColumn,
            sql`(select t.id from ${tenant} t where t.name ilike ${likeContains(value)})`,
          ),
        );
      continue;
    }
    const { field, suffix } = parseFilterName(key);
    if (isNumberSuffix(suffix)) {
      const expr = config.numberFilters && ownEntry(config.numberFilters, field);
      if (!expr) throw unknownFilter(key);
      const op = { gt: sql`>`, lt: sql`<`, gte: sql`>=`, lte: sql`<=` }[suffix];
      conditions.push(sql`${expr} ${op} ${numberFilter(key, value)}::numeric`);
      continue;
    }
    const negated = suffix === "not";
    if (negated && !config.negatable?.includes(field)) throw unknownFilter(key);
    const build = ownEntry(config.filters, negated ? field : key);
    if (!build) throw unknownFilter(key);
    const condition = ownEntry(resolved, key) ?? build(value);
    if (condition) conditions.push(negated ? sql`(${condition}) is not true` : condition);
  }
  if (q.segment && config.segmentColumn) conditions.push(eq(config.segmentColumn, q.segment));
  return conditions.length ? and(...conditions) : undefined;
}

/** The tenant condition every query of a context starts with: its tenant, or nothing for the super admin. */
function scopeCondition(tenantColumn: Column, ctx: ProviderContext): SQL | undefined {
  if (ctx.tenantId) return eq(tenantColumn, ctx.tenantId);
  if (!ctx.superAdmin) throw new AppError("forbidden", "choose a tenant first");
  return undefined;
}

function timeCondition(column: TimeColumn, end: "from" | "to", bound: TimeBound): SQL {
  const at = sql`${bound.text}::timestamptz`;
  if (typeof column === "object" && "utcDay" in column) {
    const dayStart = sql`date_trunc('day', ${at}, 'UTC')`;
    return end === "from"
      ? sql`${column.utcDay} >= ${dayStart}`
      : sql`${column.utcDay} < ${dayStart} + interval '1 day'`;
  }
  // A day as the end of a range covers that whole day; a time is that instant.
  if (end === "from") return sql`${column} >= ${at}`;
  return bound.kind === "date" ? sql`${column} < ${at} + interval '24 hours'` : sql`${column} <= ${at}`;
}

/** Adds the config's left joins to a select (its builder type changes with each join; the result keeps its shape). */
function withJoins<B>(config: SqlProviderConfig, builder: B): B {
  let joinable = builder as unknown as Joinable;
  for (const j of config.joins ?? []) joinable = joinable.leftJoin(j.table, j.on);
  return joinable as unknown as B;
}

/** An aggregate; `unknownIsNull`: a sum over no known value stays null (money with no priced row), not 0. */
function aggregate(
  config: SqlProviderConfig,
  measure: string,
  aggregation: MetricDef["aggregation"],
  unknownIsNull = false,
) {
  if (aggregation === "count") return sql<number>`count(*)::int`;
  const expr = config.measures[measure];
  if (!expr) throw new AppError("validation_failed", `unknown measure "${measure}"`);
  if (aggregation === "sum" && unknownIsNull) return sql<string | null>`sum(${expr})::text`;
  return aggregation === "sum"
    ? sql<string>`coalesce(sum(${expr}), 0)::text`
    : sql<string>`coalesce(avg(${expr}), 0)::numeric(20,2)::text`;
}

/** The page of `limit` rows out of `limit + 1` read, and the cursor to the next one when there is more. */
function pageOf(q: PageQuery, rows: Row[]) {
  const more = rows.length > q.limit;
  const visible = rows.slice(0, q.limit).map(serialize);
  const last = visible[visible.length - 1];
  const nextCursor = more && last ? encodeCursor([cursorValue(last[q.sort.field]), String(last.id)]) : null;
  return { rows: visible, nextCursor };
}

/** Dates as ISO strings and numeric columns as exact strings, ready for JSON. */
function serialize(row: Row): Row {
  const out: Row = {};
  for (const [k, v] of Object.entries(row)) out[k] = v instanceof Date ? v.toISOString() : v;
  return out;
}

function cursorValue(v: unknown): string {
  return v instanceof Date ? v.toISOString() : String(v ?? "");
}
