import "server-only";
import { createHash } from "node:crypto";
import { sql } from "drizzle-orm";
import type Redis from "ioredis";
import type { Database, Executor } from "@/db";
import { usageCounter } from "@/db/schema";
import { viaRedis } from "./redis";

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
  /** What each counter holds spent (an allowance leased and not spent yet is not spent: it is left out). */
  read(tenantId: string, keys: string[]): Promise<number[]>;
  /** One lease operation per counter for one instance, each atomic (lib/pipeline/allowances.ts). */
  lease(tenantId: string, instanceId: string, leaseMs: number, ops: LeaseOp[]): Promise<LeaseReply[]>;
}

/**
 * What an instance asks of one counter (see allowances.ts): settle `spent` out of its allowance, then hold
 * `want` unspent — at least `need`, or nothing more than it holds — within the limit (null: none).
 */
export type LeaseOp = {
  key: string;
  /** Above the last applied one for this instance and counter; a retry carries the same number. */
  seq: number;
  spent: number;
  need: number;
  want: number;
  limit: number | null;
  ttlSeconds: number;
};
/** A counter after a lease operation (or, when `applied` is false, as it was: the operation had been applied). */
export type LeaseReply = {
  key: string;
  /** This instance's unspent allowance. */
  held: number;
  /** The counter: spent, plus every instance's unspent allowance. */
  value: number;
  /** Unspent allowance of the live leases, this one's included. */
  leased: number;
  /** Instances holding a live lease with something left in it. */
  holders: number;
  applied: boolean;
};

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

/** One order for every caller (no two operations wait on each other's rows), one operation per counter. */
function sortedOps(ops: LeaseOp[]): LeaseOp[] {
  const keys = new Set(ops.map((o) => o.key));
  if (keys.size !== ops.length) throw new Error("a lease operation names a counter twice");
  return [...ops].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
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
      .select({
        key: usageCounter.key,
        value: sql<string>`${usageCounter.value} - coalesce((select sum((e.value ->> 'a')::bigint) from jsonb_each(${usageCounter.leases}) as e where (e.value ->> 'e')::bigint > (extract(epoch from clock_timestamp()) * 1000)::bigint), 0)`,
      })
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

  async lease(tenantId: string, instanceId: string, leaseMs: number, ops: LeaseOp[]): Promise<LeaseReply[]> {
    if (!ops.length) return [];
    const list = sortedOps(ops);
    const array = (values: (number | null)[], type: "bigint" | "integer") =>
      sql`array[${sql.join(
        values.map((v) => (v === null ? sql`null` : sql`${String(v)}`)),
        sql`, `,
      )}]::${sql.raw(type)}[]`;
    const result = await (await this.db()).execute(
      sql`select * from tollgate_lease(${tenantId}::uuid, ${instanceId}, ${String(leaseMs)}::bigint, array[${sql.join(
        list.map((o) => sql`${o.key}`),
        sql`, `,
      )}]::text[], ${array(
        list.map((o) => o.seq),
        "bigint",
      )}, ${array(
        list.map((o) => o.spent),
        "bigint",
      )}, ${array(
        list.map((o) => o.need),
        "bigint",
      )}, ${array(
        list.map((o) => o.want),
        "bigint",
      )}, ${array(
        list.map((o) => o.limit),
        "bigint",
      )}, ${array(
        list.map((o) => o.ttlSeconds),
        "integer",
      )})`,
    );
    const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as {
      r_key: string;
      r_held: string | number;
      r_value: string | number;
      r_leased: string | number;
      r_holders: number;
      r_applied: boolean;
    }[];
    return rows.map((r) => ({
      key: r.r_key,
      held: Number(r.r_held),
      value: Number(r.r_value),
      leased: Number(r.r_leased),
      holders: Number(r.r_holders),
      applied: r.r_applied,
    }));
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

// The logic of tollgate_lease() (migration 0019) for Redis. KEYS: per counter, its value and its leases (a hash:
// instance → "allowance,seq,lapses at ms"). ARGV: instance, lease ms, then per counter seq, spent, need, want,
// limit (-1: none), ttl. Answers per counter held, value, leased, holders, applied (1/0).
const LEASE_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local me = ARGV[1]
local leaseMs = tonumber(ARGV[2])
local out = {}
for i = 1, #KEYS / 2 do
  local vk, lk = KEYS[i * 2 - 1], KEYS[i * 2]
  local o = 2 + (i - 1) * 6
  local seq, spent, need, want = tonumber(ARGV[o + 1]), tonumber(ARGV[o + 2]), tonumber(ARGV[o + 3]), tonumber(ARGV[o + 4])
  local limit, ttl = tonumber(ARGV[o + 5]), tonumber(ARGV[o + 6])
  local v = tonumber(redis.call('GET', vk) or '0')
  local a, s = 0, 0
  local others, othersAmount = 0, 0
  local all = redis.call('HGETALL', lk)
  for j = 1, #all, 2 do
    local la, ls, le = string.match(all[j + 1], '^(-?%d+),(%d+),(%d+)$')
    la, ls, le = tonumber(la), tonumber(ls), tonumber(le)
    if all[j] == me then a, s = la, ls
    else
      if le > now then
        othersAmount = othersAmount + la
        if la > 0 then others = others + 1 end
      elseif le <= now - 600000 then redis.call('HDEL', lk, all[j]) end
    end
  end
  local applied = 0
  if seq > s then
    applied = 1
    a = a - spent
    if a < 0 then v = v - a; a = 0 end
    if want > a then
      local g
      if limit < 0 then g = want - a
      else
        local room = math.max(limit - v, 0)
        g = math.min(want - a, math.max(math.floor(room / (others + 1)), need - a), room)
        if g < 0 or a + g < need then g = 0 end
      end
      v = v + g
      a = a + g
    elseif want < a then
      v = v - (a - want)
      a = want
    end
    redis.call('SET', vk, string.format('%d', v))
    redis.call('HSET', lk, me, string.format('%d,%d,%d', a, seq, now + leaseMs))
    for _, k in ipairs({vk, lk}) do
      if redis.call('TTL', k) < ttl then redis.call('EXPIRE', k, ttl) end
    end
  end
  local holders = others
  if a > 0 then holders = holders + 1 end
  out[i] = {a, v, othersAmount + a, holders, applied}
end
return out
`;

// KEYS: per counter, its value and its leases. Answers each counter's value less the live leases' allowance.
const READ_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local out = {}
for i = 1, #KEYS / 2 do
  local v = tonumber(redis.call('GET', KEYS[i * 2 - 1]) or '0')
  local all = redis.call('HGETALL', KEYS[i * 2])
  for j = 2, #all, 2 do
    local la, le = string.match(all[j], '^(-?%d+),%d+,(%d+)$')
    if tonumber(le) > now then v = v - tonumber(la) end
  end
  out[i] = v
end
return out
`;

const shas = new Map<string, string>();
const shaOf = (text: string) => {
  let sha = shas.get(text);
  if (!sha) {
    sha = createHash("sha1").update(text).digest("hex");
    shas.set(text, sha);
  }
  return sha;
};

/** Counters in Redis (when REDIS_URL is set): a take is one Lua script, which Redis runs atomically. */
export class RedisCounters implements CounterStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private k = (tenantId: string, key: string) => `${this.prefix}c:${tenantId}:${key}`;

  /** Runs a script by its SHA1 (Redis parses it once), sending its text only when Redis does not know it yet. */
  private async script(text: string, keys: number, ...args: (string | number)[]): Promise<unknown> {
    const sha = shaOf(text);
    try {
      return await viaRedis(this.redis.evalsha(sha, keys, ...args));
    } catch (error) {
      // NOSCRIPT is the reply's error code (a restarted or flushed Redis): the text goes once, then the SHA again.
      if (!(error instanceof Error) || !error.message.startsWith("NOSCRIPT")) throw error;
      return viaRedis(this.redis.eval(text, keys, ...args));
    }
  }

  async take(tenantId: string, entries: Take[]): Promise<TakeResult> {
    const list = merged(entries);
    if (!list.length) return { ok: true, values: [] };
    const result = (await this.script(
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
    await viaRedis(multi.exec());
  }

  async read(tenantId: string, keys: string[]): Promise<number[]> {
    if (!keys.length) return [];
    const values = (await this.script(
      READ_SCRIPT,
      keys.length * 2,
      ...keys.flatMap((k) => [this.k(tenantId, k), `${this.k(tenantId, k)}:l`]),
    )) as number[];
    return values.map(Number);
  }

  async lease(tenantId: string, instanceId: string, leaseMs: number, ops: LeaseOp[]): Promise<LeaseReply[]> {
    if (!ops.length) return [];
    const list = sortedOps(ops);
    const rows = (await this.script(
      LEASE_SCRIPT,
      list.length * 2,
      ...list.flatMap((o) => [this.k(tenantId, o.key), `${this.k(tenantId, o.key)}:l`]),
      instanceId,
      leaseMs,
      ...list.flatMap((o) => [o.seq, o.spent, o.need, o.want, o.limit ?? -1, o.ttlSeconds]),
    )) as [number, number, number, number, number][];
    return rows.map(([held, value, leased, holders, applied], i) => ({
      key: list[i]!.key,
      held: Number(held),
      value: Number(value),
      leased: Number(leased),
      holders: Number(holders),
      applied: Number(applied) === 1,
    }));
  }
}
