import "server-only";
import Big from "big.js";
import { and, eq, gte, isNotNull, ne, sql } from "drizzle-orm";
import type { Database } from "@/db";
import { sysAgentTurn } from "@/db/schema";
import { type ScoreMean, scoreMeansBy } from "@/features/scores/server";
import { normalizeDecimal } from "@/lib/core/format/money";

export type VersionStats = {
  version: number;
  calls: number;
  failures: number;
  /** failures / calls, 0..1. */
  failureRate: number;
  /** Exact decimal strings (USD); unpriced calls are counted in `unpricedCalls`, not as free. */
  cost: string;
  costPerCall: string | null;
  unpricedCalls: number;
  p50LatencyMs: number | null;
  p95LatencyMs: number | null;
  inputTokens: number;
  outputTokens: number;
  /** Quality next to cost: each score's mean over the version's calls (thumbs: the share of thumbs up). */
  scores: ScoreMean[];
};

/**
 * What each version of one prompt did over the last `days` days, from the ledger (its prompt index): calls,
 * failures, cost and cost per priced call, latency percentiles (calls still running are left out), newest version
 * first, so a team sees what a new version changed.
 */
export async function promptVersionStats(
  db: Database,
  tenantId: string,
  name: string,
  days: number,
  now = new Date(),
): Promise<VersionStats[]> {
  const t = sysAgentTurn;
  const since = new Date(now.getTime() - days * 86_400_000);
  const rows = await db
    .select({
      version: t.promptVersion,
      calls: sql<number>`count(*)::int`,
      failures: sql<number>`count(*) filter (where ${t.status} = 'failed')::int`,
      cost: sql<string>`coalesce(sum(${t.cost}), 0)::text`,
      priced: sql<number>`count(${t.cost})::int`,
      unpriced: sql<number>`count(*) filter (where ${t.costStatus} = 'unpriced')::int`,
      p50: sql<number | null>`percentile_cont(0.5) within group (order by ${t.latencyMs})`,
      p95: sql<number | null>`percentile_cont(0.95) within group (order by ${t.latencyMs})`,
      inputTokens: sql<number>`coalesce(sum(${t.inputTokens}), 0)::bigint`,
      outputTokens: sql<number>`coalesce(sum(${t.outputTokens}), 0)::bigint`,
    })
    .from(t)
    .where(
      and(
        eq(t.tenantId, tenantId),
        eq(t.promptName, name),
        isNotNull(t.promptVersion),
        gte(t.startedAt, since),
        ne(t.status, "running"),
      ),
    )
    .groupBy(t.promptVersion)
    .orderBy(sql`${t.promptVersion} desc`);
  const quality = rows.length
    ? await scoreMeansBy(
        db,
        tenantId,
        sql`t.prompt_version`,
        sql`t.prompt_name = ${name} and t.prompt_version is not null and t.started_at >= ${since.toISOString()}::timestamptz and t.status <> 'running'`,
      )
    : new Map<string, ScoreMean[]>();
  return rows.map((r) => {
    const calls = Number(r.calls);
    const priced = Number(r.priced);
    const cost = normalizeDecimal(r.cost);
    return {
      version: Number(r.version),
      calls,
      failures: Number(r.failures),
      failureRate: calls ? Number(r.failures) / calls : 0,
      cost,
      costPerCall: priced ? divide(cost, priced) : null,
      unpricedCalls: Number(r.unpriced),
      p50LatencyMs: r.p50 === null ? null : Math.round(Number(r.p50)),
      p95LatencyMs: r.p95 === null ? null : Math.round(Number(r.p95)),
      inputTokens: Number(r.inputTokens),
      outputTokens: Number(r.outputTokens),
      scores: quality.get(String(r.version)) ?? [],
    };
  });
}

/** An exact decimal divided by a count, to 10 places (the ledger's scale), trailing zeros trimmed. */
const divide = (amount: string, by: number): string => normalizeDecimal(new Big(amount).div(by).toFixed(10));
