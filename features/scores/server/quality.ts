// Quality next to cost: the mean of each score name over a set of ledger turns, grouped (by prompt version, by
// model), for the dashboards that show what the turns cost.
import "server-only";
import { type SQL, sql } from "drizzle-orm";
import type { Database } from "@/db";
import { rowsOf } from "@/db/client";

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
