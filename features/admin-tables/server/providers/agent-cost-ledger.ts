import "server-only";
import { and, desc, eq, isNotNull, ne, type SQL, sql } from "drizzle-orm";
import type { Database } from "@/db";
import { apiKey, sysAgentTurn, tenant } from "@/db/schema";
import { likeContains } from "@/db/sql-text";
import type { ChartDef, PageQuery, ProviderContext, SeriesResult } from "@/features/admin-tables/contracts";
import { AppError } from "@/lib/core/errors/app-error";
import { normalizeDecimal } from "@/lib/core/format/money";
import { type QueryScope, scopedWhere } from "../sql-provider";
import { boundMs, DAY_MS } from "../time-buckets";
import { timeSeries } from "../time-series";

const t = sysAgentTurn;

/**
 * The cost dashboard's filters, read on the ledger: the page's time range (f.day.from/.to) bounds started_at
 * exactly as it bounds usage_daily's day, and the model, adapter and source filters are the same columns.
 */
const ledgerScope: QueryScope = {
  tenantColumn: t.tenantId,
  filters: {
    servedModel: (v) => sql`${t.servedModel} ilike ${likeContains(v)}`,
    servedAdapter: (v) => eq(t.servedAdapter, v),
    source: (v) => eq(t.source, v as "api"),
  },
  dateFilters: { day: { utcDay: t.startedAt } },
};

/**
 * The dimensions usage_daily does not have, each a ledger column with its partial index on (tenant_id, column,
 * started_at): the calling app's API key, and the end user it named.
 */
const SUBJECTS = { apiKey: t.apiKeyId, endUser: t.endUser } as const;
type Subject = keyof typeof SUBJECTS;

export const isLedgerDimension = (dimension: string): dimension is Subject =>
  Object.hasOwn(SUBJECTS, dimension);

const MEASURES: Record<string, SQL> = {
  cost: sql`${t.cost}`,
  inputTokens: sql`${t.inputTokens}`,
  outputTokens: sql`${t.outputTokens}`,
};

function aggregate(chart: ChartDef): SQL<string> {
  if (chart.aggregation === "count" || chart.measure === "requests") return sql<string>`count(*)::text`;
  const expr = Object.hasOwn(MEASURES, chart.measure) ? MEASURES[chart.measure] : undefined;
  if (!expr) throw new AppError("validation_failed", `unknown measure "${chart.measure}"`);
  return chart.aggregation === "sum"
    ? sql<string>`coalesce(sum(${expr}), 0)::text`
    : sql<string>`coalesce(avg(${expr}), 0)::numeric(20,2)::text`;
}

/**
 * A cost-dashboard chart by API key or end user, from the ledger's closed rows (usage_daily has neither): the
 * top N subjects by the measure, labelled by key name (a deleted key by its id) or end user, each with its `key`
 * (the key's id, or the end user) for links. Names that would
 * read alike are told apart: keys by their prefix, and across tenants (the super admin's "All tenants") by the
 * tenant's name, since end users and key names are each tenant's own.
 */
export async function ledgerSeries(
  db: Database,
  ctx: ProviderContext,
  q: PageQuery,
  chart: ChartDef & { dimension: Subject },
): Promise<{ label: string; value: string | number; key: string }[]> {
  const subject = SUBJECTS[chart.dimension];
  const value = aggregate(chart);
  const top = db
    .select({
      tenantId: sql<string>`${t.tenantId}`.as("top_tenant_id"),
      subject: sql<string>`${subject}::text`.as("top_subject"),
      value: value.as("top_value"),
      rank: sql<string>`${value}::numeric`.as("top_rank"),
    })
    .from(t)
    .where(and(scopedWhere(ledgerScope, ctx, q), isNotNull(subject), ne(t.status, "running")))
    .groupBy(t.tenantId, subject)
    .orderBy(desc(sql`4`), sql`2`)
    .limit(chart.topN ?? 50)
    .as("top");
  const rows = await db
    .select({
      subject: top.subject,
      value: top.value,
      keyName: apiKey.name,
      keyPrefix: apiKey.prefix,
      tenantName: tenant.name,
    })
    .from(top)
    .leftJoin(
      apiKey,
      chart.dimension === "apiKey"
        ? and(sql`${apiKey.id}::text = ${top.subject}`, sql`${apiKey.tenantId} = ${top.tenantId}`)
        : sql`false`,
    )
    .leftJoin(tenant, sql`${tenant.id} = ${top.tenantId}`)
    .orderBy(desc(sql`${top.rank}`), top.subject);

  const allTenants = !ctx.tenantId;
  const named = rows.map((r) => ({
    ...r,
    name: r.keyName ?? r.subject,
    tenantSuffix: allTenants && r.tenantName ? ` · ${r.tenantName}` : "",
  }));
  const seen = new Map<string, number>();
  for (const r of named) seen.set(r.name + r.tenantSuffix, (seen.get(r.name + r.tenantSuffix) ?? 0) + 1);
  return named.map((r) => {
    const twin = (seen.get(r.name + r.tenantSuffix) ?? 0) > 1;
    const label = `${r.name}${twin && r.keyPrefix ? ` (${r.keyPrefix}…)` : ""}${r.tenantSuffix}`;
    const text = String(r.value);
    const value = /^\d+$/.test(text) && text.length < 16 ? Number(text) : normalizeDecimal(text);
    return { label, value, key: r.subject };
  });
}

/** A time filter that starts at most two days before it ends (or before now, when it has no end). */
export function isShortRange(q: PageQuery, nowMs = Date.now()): boolean {
  const from = boundMs(q.filters["day.from"], false);
  if (from === null) return false;
  const to = boundMs(q.filters["day.to"], true) ?? nowMs;
  return to - from <= 2 * DAY_MS;
}

/** A cost-dashboard chart over a short range, by the hour, from the ledger's closed rows (the rollups are daily). */
export async function ledgerHourly(
  db: Database,
  ctx: ProviderContext,
  q: PageQuery,
  chart: ChartDef,
): Promise<SeriesResult> {
  return timeSeries(db, {
    table: t,
    where: and(scopedWhere(ledgerScope, ctx, q), ne(t.status, "running")),
    time: sql`(${t.startedAt} at time zone 'UTC')`,
    value: aggregate(chart),
    finest: "hour",
    filter: { from: q.filters["day.from"], to: q.filters["day.to"] },
  });
}
