import Redis from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresResponseCache, sweepExpiredPipelineRows } from "@/lib/pipeline/cache-store";
import { type CounterStore, PostgresCounters, RedisCounters } from "@/lib/pipeline/counters";
import { createMigratedDatabase, type TestDatabase, testDbKinds } from "../helpers/db";

/** Redis for the counters' tests, when the run has one (CI sets TEST_REDIS_URL). */
const redisUrl = process.env.TEST_REDIS_URL ?? "";
const stores = [...testDbKinds, ...(redisUrl ? ["redis" as const] : [])];
const TENANT = "0193f3c0-0000-7000-8000-0000000000aa";

describe.each(stores)("shared counters in %s", (kind) => {
  let store: CounterStore;
  let close: () => Promise<unknown>;

  beforeAll(async () => {
    if (kind === "redis") {
      const redis = new Redis(redisUrl);
      store = new RedisCounters(redis, `tollgate-test-${process.pid}-${Date.now()}:`);
      close = () => redis.quit();
    } else {
      const test: TestDatabase = await createMigratedDatabase(kind);
      store = new PostgresCounters(async () => test.handle.db);
      close = () => test.drop();
    }
  });
  afterAll(() => close());

  it("takes all of a call's counters or none", async () => {
    const a = { key: "all-or-none:a", amount: 1, limit: 5, ttlSeconds: 60 };
    const b = { key: "all-or-none:b", amount: 1, limit: 1, ttlSeconds: 60 };
    expect(await store.take(TENANT, [a, b])).toEqual({ ok: true, values: [1, 1] });
    expect(await store.take(TENANT, [a, b])).toEqual({ ok: false, index: 1, value: 1 });
    // The refused take added nothing to the first counter either.
    expect(await store.read(TENANT, [a.key, b.key])).toEqual([1, 1]);
  });

  it("take returns each counter's new value (what the rate-limit headers report), a repeated key's total", async () => {
    await store.add(TENANT, [{ key: "values:a", amount: 40, ttlSeconds: 60 }]);
    const a = { key: "values:a", amount: 2, limit: 100, ttlSeconds: 60 };
    const b = { key: "values:b", amount: 1, limit: null, ttlSeconds: 60 };
    expect(await store.take(TENANT, [a, b, a])).toEqual({ ok: true, values: [44, 1, 44] });
    expect(await store.take(TENANT, [b])).toEqual({ ok: true, values: [2] });
  });

  it("lets exactly the limit through when 50 takes race for one counter", async () => {
    const take = { key: "race", amount: 3, limit: 30, ttlSeconds: 60 };
    const results = await Promise.all(Array.from({ length: 50 }, () => store.take(TENANT, [take])));
    expect(results.filter((r) => r.ok)).toHaveLength(10);
    expect(await store.read(TENANT, ["race"])).toEqual([30]);
  });

  it("adds and gives back without a limit, and reads a missing counter as 0", async () => {
    await store.add(TENANT, [{ key: "settle", amount: 1_000_000_000, ttlSeconds: 60 }]);
    await store.add(TENANT, [{ key: "settle", amount: -250_000_000, ttlSeconds: 60 }]);
    expect(await store.read(TENANT, ["settle", "never-written"])).toEqual([750_000_000, 0]);
  });
});

describe.each(testDbKinds)("expired pipeline rows on %s", (kind) => {
  it("are swept: counter windows and cache entries past their time, nothing else", async () => {
    const test = await createMigratedDatabase(kind);
    try {
      const db = test.handle.db;
      const store = new PostgresCounters(async () => db);
      await store.add(TENANT, [
        { key: "old", amount: 1, ttlSeconds: 1 },
        { key: "live", amount: 1, ttlSeconds: 600 },
      ]);
      const cache = new PostgresResponseCache(async () => db);
      const answer = {
        message: { role: "assistant" as const, content: "hi", toolCalls: [] },
        finishReason: "stop" as const,
        servedProvider: "up",
        servedAdapter: "openai" as const,
        servedModel: "m",
      };
      await cache.set(TENANT, "old", "m", answer, 1);
      await cache.set(TENANT, "live", "m", answer, 600);
      expect(await sweepExpiredPipelineRows(db, new Date(Date.now() + 5_000))).toBe(2);
      expect(await store.read(TENANT, ["old", "live"])).toEqual([0, 1]);
      expect(await cache.get(TENANT, "live")).toMatchObject({ message: { content: "hi" } });
    } finally {
      await test.drop();
    }
  });
});
