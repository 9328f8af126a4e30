// The counter store's Redis deadlines (lib/pipeline/redis.ts) against a real Redis behind the fault proxy: a
// refused or black-holed Redis fails a counter operation fast as the Redis dependency being away (a 503 for the
// caller), tollgate_dependency_up{dependency="redis"} follows it down and up, and the same connection serves
// again once Redis is back, without a restart.
import { randomUUID } from "node:crypto";
import type Redis from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dependencyFailure, dependencyStates } from "@/lib/core/errors/dependency";
import { RedisCounters } from "@/lib/pipeline/counters";
import { openPipelineRedis } from "@/lib/pipeline/redis";
import { type FaultProxy, startFaultProxy } from "../fakes/fault-proxy";

const redisUrl = process.env.TEST_REDIS_URL ?? "";
const COMMAND_TIMEOUT_MS = 500;

describe.runIf(redisUrl)("Redis deadlines", () => {
  let proxy: FaultProxy;
  let redis: Redis;
  let counters: RedisCounters;
  const tenant = randomUUID();
  const take = () => counters.take(tenant, [{ key: "calls", amount: 1, limit: null, ttlSeconds: 60 }]);
  const redisUp = () => new Map(dependencyStates()).get("redis");
  const failureOf = (p: Promise<unknown>) =>
    p.then(
      () => null,
      (error: unknown) => error,
    );
  const backWithin = async (ms: number) => {
    const started = Date.now();
    while (Date.now() - started < ms) {
      if (
        await take().then(
          () => true,
          () => false,
        )
      )
        return Date.now() - started;
      await new Promise((r) => setTimeout(r, 50));
    }
    return Number.POSITIVE_INFINITY;
  };

  beforeAll(async () => {
    const target = new URL(redisUrl);
    proxy = await startFaultProxy({ host: target.hostname, port: Number(target.port || 6379) });
    redis = openPipelineRedis(proxy.url("redis"), {
      commandTimeoutMs: COMMAND_TIMEOUT_MS,
      connectTimeoutMs: 500,
    });
    counters = new RedisCounters(redis, `tollgate-test-${randomUUID()}:`);
    expect((await take()).ok).toBe(true);
  });
  afterAll(async () => {
    redis?.disconnect();
    await proxy?.close();
  });

  it("fails fast as Redis away while it refuses, and serves again once it is back", async () => {
    await proxy.set("refuse");
    const started = Date.now();
    const error = await failureOf(take());
    expect(dependencyFailure(error)?.dependency).toBe("redis");
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(redisUp()).toBe(false);
    await proxy.set("pass");
    expect(await backWithin(5_000)).toBeLessThan(5_000);
    expect(redisUp()).toBe(true);
  });

  it("fails a command to a black-holed Redis within its timeout, and serves again once it is back", async () => {
    await proxy.set("blackhole");
    const started = Date.now();
    const error = await failureOf(take());
    expect(dependencyFailure(error)).toEqual({ dependency: "redis", cause: "COMMAND_TIMEOUT" });
    expect(Date.now() - started).toBeLessThan(COMMAND_TIMEOUT_MS + 1_000);
    expect(redisUp()).toBe(false);
    await proxy.set("pass");
    expect(await backWithin(5_000)).toBeLessThan(5_000);
    expect(redisUp()).toBe(true);
  });
});
