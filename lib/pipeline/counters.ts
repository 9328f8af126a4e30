import "server-only";
import { sql } from "drizzle-orm";
import type Redis from "ioredis";
import type { Database, Executor } from "@/db";
import { usageCounter } from "@/db/schema";

/** One counter to add to, with the most it may reach (null: no limit) and how long its window lives. */
export type Take = { key: string; amount: number; limit: number | null; ttlSeconds: number };
export type TakeResult =
  | { ok: true; values: number[] }
  /** The first counter that would pass its limit, and its value before this call. */
  | { ok: false; index: number; value: number };

/**
 * Shared counters (rate-limit windows, budget spend), whole numbers only: requests, tokens, nano-dollars.
 * Shared by every instance of the app, in PostgreSQL or in Redis.
 */
export interface CounterStore {
  /** Adds every amount if no counter passes its limit, else nothing: all or nothing, safe under concurrency. */
  take(tenantId: string, entries: Take[]): Promise<TakeResult>;
  /** Adds without a limit (a negative amount gives back). */
  add(tenantId: string, entries: Omit<Take, "limit">[]): Promise<void>;
  read(tenantId: string, keys: string[]): Promise<number[]>;
}

/** Merges entries on the same key (a statement may not touch one row twice), keeping the tighter limit. */
function merged(entries: Take[]): Take[] {
  const byKey = new Map<string, Take>();
  for (const e of entries) {
    const seen = byKey.get(e.key);
    if (!seen) byKey.set(e.key, { ...e });
    else {
      seen.amount += e.amount;
      seen.limit =
        seen.limit === null ? e.limit : e.limit === null ? seen.limit : Math.min(seen.limit, e.limit);
      seen.ttlSeconds = Math.max(seen.ttlSeconds, e.ttlSeconds);
    }
  }
  // One order for every caller, so two transactions never wait on each other's rows in opposite orders.
  return [...byKey.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

class Denied extends Error {
  constructor(
    readonly key: string,
    readonly value: number,
  ) {
    super("denied");
  }
}

/**
 * Counters as rows of `usage_counter`. A take is one upsert in a transaction: the rows it touches stay locked
 * until it commits or rolls back, so concurrent takes on one counter are serialised by PostgreSQL itself.
 */
export class PostgresCounters implements CounterStore {
  constructor(private readonly db: () => Promise<Database>) {}

  async take(tenantId: string, entries: Take[]): Promise<TakeResult> {
    const list = merged(entries);
    if (!list.length) return { ok: true, values: [] };
    const db = await this.db();
    try {
      const values = await db.transaction(async (tx) => {
        const rows = await this.upsert(tx, tenantId, list).returning({
          key: usageCounter.key,
          value: usageCounter.value,
        });
        const byKey = new Map(rows.map((r) => [r.key, Number(r.value)]));
        for (const e of list) {
          const value = byKey.get(e.key) ?? e.amount;
          if (e.limit !== null && value > e.limit) throw new Denied(e.key, value - e.amount);
        }
        return byKey;
      });
      return { ok: true, values: entries.map((e) => values.get(e.key) ?? 0) };
    } catch (error) {
      if (error instanceof Denied)
        return { ok: false, index: entries.findIndex((e) => e.key === error.key), value: error.value };
      throw error;
    }
  }

  async add(tenantId: string, entries: Omit<Take, "limit">[]): Promise<void> {
    const list = merged(entries.map((e) => ({ ...e, limit: null }))).filter((e) => e.amount !== 0);
    if (!list.length) return;
    await this.upsert(await this.db(), tenantId, list);
  }

  async read(tenantId: string, keys: string[]): Promise<number[]> {
    if (!keys.length) return [];
    const rows = await (await this.db())
      .select({ key: usageCounter.key, value: usageCounter.value })
      .from(usageCounter)
      .where(
        sql`${usageCounter.tenantId} = ${tenantId} and ${usageCounter.key} in (${sql.join(
          keys.map((k) => sql`${k}`),
          sql`, `,
        )})`,
      );
    const byKey = new Map(rows.map((r) => [r.key, Number(r.value)]));
    return keys.map((k) => byKey.get(k) ?? 0);
  }

  /** Adds each amount to its counter (made at 0 when new); a window lives at least as long as any caller asked. */
  private upsert(db: Executor, tenantId: string, list: Omit<Take, "limit">[]) {
    return db
      .insert(usageCounter)
      .values(
        list.map((e) => ({
          tenantId,
          key: e.key,
          value: e.amount,
          expiresAt: new Date(Date.now() + e.ttlSeconds * 1000),
        })),
      )
      .onConflictDoUpdate({
        target: [usageCounter.tenantId, usageCounter.key],
        set: {
          value: sql`${usageCounter.value} + excluded.value`,
          expiresAt: sql`greatest(${usageCounter.expiresAt}, excluded.expires_at)`,
        },
      });
  }
}

// KEYS: the counters. ARGV: for each key, amount, limit (-1: none), ttl. Checks all, then adds all.
const TAKE_SCRIPT = `
for i = 1, #KEYS do
  local limit = tonumber(ARGV[i * 3 - 1])
  if limit >= 0 then
    local value = tonumber(redis.call('GET', KEYS[i]) or '0')
    if value + tonumber(ARGV[i * 3 - 2]) > limit then return {i, value} end
  end
end
local values = {}
for i = 1, #KEYS do
  values[i] = redis.call('INCRBY', KEYS[i], ARGV[i * 3 - 2])
  local ttl = tonumber(ARGV[i * 3])
  if redis.call('TTL', KEYS[i]) < ttl then redis.call('EXPIRE', KEYS[i], ttl) end
end
return {0, values}
`;

/** Counters in Redis (when REDIS_URL is set): a take is one Lua script, which Redis runs atomically. */
export class RedisCounters implements CounterStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private k = (tenantId: string, key: string) => `${this.prefix}c:${tenantId}:${key}`;

  async take(tenantId: string, entries: Take[]): Promise<TakeResult> {
    const list = merged(entries);
    if (!list.length) return { ok: true, values: [] };
    const result = (await this.redis.eval(
      TAKE_SCRIPT,
      list.length,
      ...list.map((e) => this.k(tenantId, e.key)),
      ...list.flatMap((e) => [e.amount, e.limit ?? -1, e.ttlSeconds]),
    )) as [number, number[] | number];
    if (result[0] !== 0) {
      const key = list[result[0] - 1]!.key;
      return { ok: false, index: entries.findIndex((e) => e.key === key), value: Number(result[1]) };
    }
    const values = new Map(list.map((e, i) => [e.key, Number((result[1] as number[])[i])]));
    return { ok: true, values: entries.map((e) => values.get(e.key) ?? 0) };
  }

  async add(tenantId: string, entries: Omit<Take, "limit">[]): Promise<void> {
    const list = merged(entries.map((e) => ({ ...e, limit: null }))).filter((e) => e.amount !== 0);
    if (!list.length) return;
    const multi = this.redis.multi();
    for (const e of list) {
      multi.incrby(this.k(tenantId, e.key), e.amount);
      multi.expire(this.k(tenantId, e.key), e.ttlSeconds, "GT");
      multi.expire(this.k(tenantId, e.key), e.ttlSeconds, "NX");
    }
    await multi.exec();
  }

  async read(tenantId: string, keys: string[]): Promise<number[]> {
    if (!keys.length) return [];
    const values = await this.redis.mget(...keys.map((k) => this.k(tenantId, k)));
    return values.map((v) => Number(v ?? 0));
  }
}
