// Quality next to cost: the mean of each score name over a set of ledger turns, grouped (by prompt version, by
// model), for the dashboards that show what the turns cost.
import "server-only";
import Big from "big.js";
import { type SQL, sql } from "drizzle-orm";
import type { Database } from "@/db";
import { rowsOf } from "@/db/client";
import type { ModelQuality } from "@/features/scores/contracts";
import { normalizeDecimal } from "@/lib/core/format/money";

/** One score name's mean over a group's turns: thumbs as the share of thumbs up (0..1), numbers as their mean. */
export type ScoreMean = { name: string; mean: number; count: number };

/** At most this many score names per group, the most given first. */
export const SCORE_MEANS_PER_GROUP = 5;

/**
 * The means of the scores (numeric and boolean; categories have no mean) on the tenant's turns that `where` keeps
 * (a condition on sys_agent_turn as `t`), by `group` (an expression on `t`, read as text). Each turn's scores come
 * through score_tenant_turn_idx.
 */
export async function scoreMeansBy(
  db: Database,
  tenantId: string,
  group: SQL,
  where: SQL,
): Promise<Map<string, ScoreMean[]>> {
  const rows = rowsOf<{ key: string | null; name: string; mean: number; count: number }>(
    await db.execute(sql`select (${group})::text as key, s.name, avg(s.value)::float8 as mean, count(*)::int as count
      from sys_agent_turn t join score s on s.tenant_id = t.tenant_id and s.turn_id = t.id
      where t.tenant_id = ${tenantId} and s.tenant_id = ${tenantId} and s.value is not null and ${where}
      group by 1, 2 order by 1, 4 desc, 2`),
  );
  const byGroup = new Map<string, ScoreMean[]>();
  for (const r of rows) {
    const key = r.key ?? "";
    const list = byGroup.get(key) ?? [];
    if (list.length < SCORE_MEANS_PER_GROUP)
      list.push({ name: r.name, mean: Number(r.mean), count: Number(r.count) });
    byGroup.set(key, list);
  }
  return byGroup;
}

/** At most this many models, the most called first. */
export const QUALITY_MODELS_MAX = 20;

/**
 * Per served model over the last `days` days: its finished calls, their cost and cost per priced call, and the
 * means of the scores given to them, so quality reads next to cost.
 */
export async function modelQuality(
  db: Database,
  tenantId: string,
  days: number,
  now = new Date(),
): Promise<ModelQuality[]> {
  const since = new Date(now.getTime() - days * 86_400_000).toISOString();
  const scope = sql`t.served_model is not null and t.started_at >= ${since}::timestamptz and t.status <> 'running'`;
  const rows = rowsOf<{ model: string; calls: number; cost: string; priced: number }>(
    await db.execute(sql`select t.served_model as model, count(*)::int as calls,
        coalesce(sum(t.cost), 0)::text as cost, count(t.cost)::int as priced
      from sys_agent_turn t where t.tenant_id = ${tenantId} and ${scope}
      group by 1 order by 2 desc, 1 limit ${QUALITY_MODELS_MAX}`),
  );
  if (!rows.length) return [];
  const means = await scoreMeansBy(db, tenantId, sql`t.served_model`, scope);
  return rows.map((r) => {
    const cost = normalizeDecimal(r.cost);
    const priced = Number(r.priced);
    return {
      model: r.model,
      calls: Number(r.calls),
      cost,
      costPerCall: priced ? normalizeDecimal(new Big(cost).div(priced).toFixed(10)) : null,
      scores: means.get(r.model) ?? [],
    };
  });
}
