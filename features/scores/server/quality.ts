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
  return groupMeans(
    rowsOf<{ key: string | null; name: string; mean: number; count: number }>(
      await db.execute(sql`select (${group})::text as key, s.name, avg(s.value)::float8 as mean, count(*)::int as count
        from sys_agent_turn t join score s on s.tenant_id = t.tenant_id and s.turn_id = t.id
        where t.tenant_id = ${tenantId} and s.tenant_id = ${tenantId} and s.value is not null and ${where}
        group by 1, 2 order by 1, 4 desc, 2`),
    ),
  );
}

/** Rows of (group, name, mean, count), ordered by group and most given first, as at most 5 means per group. */
function groupMeans(
  rows: { key: string | null; name: string; mean: number; count: number }[],
): Map<string, ScoreMean[]> {
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
 * Per served model over the last `days` UTC days (today included): its finished calls, their cost and cost per
 * priced call from the daily rollup (the cost dashboard's own numbers), and the means of the scores given to the
 * period's turns from the scores' daily rollup (score_daily, by the turn's day and model), so quality reads next to
 * cost without reading the ledger or the scores.
 */
export async function modelQuality(
  db: Database,
  tenantId: string,
  days: number,
  now = new Date(),
): Promise<ModelQuality[]> {
  const firstDay = new Date(now.getTime() - (days - 1) * 86_400_000).toISOString().slice(0, 10);
  const rows = rowsOf<{ model: string; calls: number; cost: string; priced: number }>(
    await db.execute(sql`select served_model as model, sum(requests)::int as calls,
        coalesce(sum(cost), 0)::text as cost, sum(requests - unpriced_requests)::int as priced
      from usage_daily where tenant_id = ${tenantId} and day >= ${firstDay}::date and served_adapter <> 'none'
      group by 1 order by 2 desc, 1 limit ${QUALITY_MODELS_MAX}`),
  );
  if (!rows.length) return [];
  const means = groupMeans(
    rowsOf<{ key: string; name: string; mean: number; count: number }>(
      await db.execute(sql`select model as key, name, (sum(total) / sum(count))::float8 as mean,
          sum(count)::int as count
        from score_daily where tenant_id = ${tenantId} and day >= ${firstDay}::date and model in (${sql.join(
          rows.map((r) => sql`${r.model}`),
          sql`, `,
        )})
        group by 1, 2 having sum(count) > 0 order by 1, 4 desc, 2`),
    ),
  );
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
