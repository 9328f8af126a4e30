import "server-only";
import { and, asc, desc, eq, gte, lte, ne, type SQL, sql } from "drizzle-orm";
import type { Database } from "@/db";
import { usageDaily } from "@/db/schema";
import { normalizeDecimal } from "@/lib/core/format/money";

export type MeterDimension = "model" | "user" | "adapter" | "day" | "tenant";

export type MeterRow = {
  key: string;
  requests: number;
  failures: number;
  inputTokens: number;
  cachedInputTokens: number;
  cacheWriteTokens: number;
  outputTokens: number;
  /** Exact decimal string in USD: priced calls only (an unpriced call's cost is unknown, counted below). */
  cost: string;
  unpricedRequests: number;
};

const COLUMN = {
  model: usageDaily.servedModel,
  user: usageDaily.userId,
  adapter: usageDaily.servedAdapter,
  day: usageDaily.day,
  tenant: usageDaily.tenantId,
} as const;

/**
 * Usage and cost summed from the daily rollups (never the ledger) by one dimension. `tenantId: null` reads
 * across every tenant and is for the platform super admin only; callers decide who may ask for it. `userId`
 * narrows to one person's calls, `exceptSource` leaves one source out (a user's budget does not cover `api`).
 */
export async function meter(
  db: Database,
  q: {
    tenantId: string | null;
    by: MeterDimension;
    from?: string;
    to?: string;
    limit?: number;
    userId?: string;
    exceptSource?: string;
  },
): Promise<MeterRow[]> {
  const conditions: SQL[] = [];
  if (q.tenantId) conditions.push(eq(usageDaily.tenantId, q.tenantId));
  if (q.userId) conditions.push(eq(usageDaily.userId, q.userId));
  if (q.exceptSource) conditions.push(ne(usageDaily.source, q.exceptSource));
  if (q.from) conditions.push(gte(usageDaily.day, q.from));
  if (q.to) conditions.push(lte(usageDaily.day, q.to));
  const key = COLUMN[q.by];
  const cost = sql<string>`sum(${usageDaily.cost})::text`;
  const rows = await db
    .select({
      key: sql<string>`${key}::text`,
      requests: sql<number>`sum(${usageDaily.requests})::int`,
      failures: sql<number>`sum(${usageDaily.failures})::int`,
      inputTokens: sql<number>`sum(${usageDaily.inputTokens})::bigint`,
      cachedInputTokens: sql<number>`sum(${usageDaily.cachedInputTokens})::bigint`,
      cacheWriteTokens: sql<number>`sum(${usageDaily.cacheWriteTokens})::bigint`,
      outputTokens: sql<number>`sum(${usageDaily.outputTokens})::bigint`,
      cost,
      unpricedRequests: sql<number>`sum(${usageDaily.unpricedRequests})::int`,
    })
    .from(usageDaily)
    .where(conditions.length ? and(...conditions) : undefined)
    .groupBy(key)
    .orderBy(q.by === "day" ? asc(key) : desc(sql`sum(${usageDaily.cost})`))
    .limit(q.limit ?? 100);
  return rows.map((r) => ({
    ...r,
    inputTokens: Number(r.inputTokens),
    cachedInputTokens: Number(r.cachedInputTokens),
    cacheWriteTokens: Number(r.cacheWriteTokens),
    outputTokens: Number(r.outputTokens),
    cost: normalizeDecimal(r.cost),
    unpricedRequests: Number(r.unpricedRequests),
  }));
}
