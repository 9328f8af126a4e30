// The rate-limit step tells /v1 what OpenAI's x-ratelimit-* headers should say: one rate_limit_state event per
// admitted call, before the answer, from the counters' own values, on every counter store.
import { randomUUID } from "node:crypto";
import Redis from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseGatewayConfig } from "@/lib/gateway/config";
import { Gateway } from "@/lib/gateway/gateway";
import { type CounterStore, PostgresCounters, RedisCounters } from "@/lib/pipeline/counters";
import { DEFAULT_MAX_OUTPUT_TOKENS, type ScopedLimit } from "@/lib/pipeline/policy";
import { rateLimitStep } from "@/lib/pipeline/rate-limit";
import { type Call, emptyStamp, type Next, type PipelineEvent } from "@/lib/pipeline/types";
import { createMigratedDatabase, testDbKinds } from "../helpers/db";

const redisUrl = process.env.TEST_REDIS_URL ?? "";
const stores = [...testDbKinds, ...(redisUrl ? ["redis" as const] : [])];

const gateway = new Gateway(
  parseGatewayConfig(
    {
      providers: { up: { type: "openai", baseUrl: "http://127.0.0.1:9/v1" } },
      models: { m: { candidates: [{ provider: "up", model: "gpt-4o-mini" }] } },
    },
    "test",
    {},
  ),
);

const NONE = {
  requestsPerMinute: null,
  tokensPerMinute: null,
  dailySoftUsd: null,
  dailyHardUsd: null,
  monthlySoftUsd: null,
  monthlyHardUsd: null,
};

/** A call of a fresh tenant and key (so tests never share a window), under the given limits. */
function callUnder(limits: (ids: { tenantId: string; keyId: string }) => ScopedLimit[]): Call {
  const ids = { tenantId: randomUUID(), keyId: randomUUID() };
  return {
    caller: { tenantId: ids.tenantId, apiKeyId: ids.keyId, userId: null, source: "api" },
    request: { model: "m", messages: [{ role: "user", content: "hi" }] },
    stream: false,
    noCache: false,
    policy: {
      cacheAliases: [],
      cacheTtlSeconds: 0,
      limits: limits(ids),
      maxOutputTokensDefault: DEFAULT_MAX_OUTPUT_TOKENS,
      assumedPrices: {},
    },
    gateway,
  };
}

const tenantLimit = (tenantId: string, values: Partial<ScopedLimit>): ScopedLimit => ({
  scope: "tenant",
  subjectId: tenantId,
  ...NONE,
  ...values,
});
const keyLimit = (keyId: string, values: Partial<ScopedLimit>): ScopedLimit => ({
  scope: "key",
  subjectId: keyId,
  ...NONE,
  ...values,
});

/** The rest of the pipeline: an answer that used `tokens` tokens (input, cached and output). */
const answering = (tokens: number): Next =>
  async function* (call) {
    yield { type: "text", delta: "ok" };
    yield {
      type: "done",
      response: {
        message: { role: "assistant", content: "ok", toolCalls: [] },
        finishReason: "stop",
        stamp: {
          ...emptyStamp(call.request.model),
          usage: {
            inputTokens: tokens - 3,
            cachedInputTokens: 1,
            cacheWriteTokens: 0,
            outputTokens: 2,
            reasoningTokens: 0,
          },
        },
      },
    };
  };

async function collect(events: AsyncIterable<PipelineEvent>): Promise<PipelineEvent[]> {
  const out: PipelineEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

// Pinned 40 s into a minute: every window here resets in 20 s.
const minuteStart = Math.floor(Date.now() / 60_000) * 60_000;
const now = () => minuteStart + 40_000;

describe.each(stores)("rate-limit state with counters in %s", (kind) => {
  let counters: CounterStore;
  let close: () => Promise<unknown>;

  beforeAll(async () => {
    if (kind === "redis") {
      const redis = new Redis(redisUrl);
      counters = new RedisCounters(redis, `tollgate-test-${process.pid}-${Date.now()}:`);
      close = () => redis.quit();
    } else {
      const test = await createMigratedDatabase(kind);
      counters = new PostgresCounters(async () => test.handle.db);
      close = () => test.drop();
    }
  });
  afterAll(() => close());

  const step = () => rateLimitStep(() => counters, now);

  it("yields the tightest requests window once, before the answer, counting this request", async () => {
    const call = callUnder(({ tenantId, keyId }) => [
      tenantLimit(tenantId, { requestsPerMinute: 10 }),
      keyLimit(keyId, { requestsPerMinute: 3 }),
    ]);
    const first = await collect(step()(call, answering(5)));
    expect(first.map((e) => e.type)).toEqual(["rate_limit_state", "text", "done"]);
    expect(first[0]).toEqual({
      type: "rate_limit_state",
      requests: { limit: 3, remaining: 2, resetSeconds: 20 },
    });
    const second = await collect(step()(call, answering(5)));
    const third = await collect(step()(call, answering(5)));
    expect([second[0], third[0]]).toEqual([
      { type: "rate_limit_state", requests: { limit: 3, remaining: 1, resetSeconds: 20 } },
      { type: "rate_limit_state", requests: { limit: 3, remaining: 0, resetSeconds: 20 } },
    ]);
    // A refusal carries retry-after instead: no state event.
    const refused = await collect(step()(call, answering(5)));
    expect(refused.map((e) => e.type)).toEqual(["guardrail", "error"]);
  });

  it("picks the scope with the least room left, which changes as the tenant's other keys spend it", async () => {
    const call = callUnder(({ tenantId, keyId }) => [
      tenantLimit(tenantId, { requestsPerMinute: 5 }),
      keyLimit(keyId, { requestsPerMinute: 3 }),
    ]);
    const sibling: Call = { ...call, caller: { ...call.caller, apiKeyId: randomUUID() } };
    sibling.policy = {
      ...call.policy,
      limits: call.policy.limits.filter((l) => l.scope === "tenant"),
    };
    expect((await collect(step()(call, answering(1))))[0]).toMatchObject({
      requests: { limit: 3, remaining: 2 },
    });
    await collect(step()(sibling, answering(1)));
    await collect(step()(sibling, answering(1)));
    // Tenant: 5 − 4 = 1 left; key: 3 − 2 = 1 left; a tie goes to the smaller limit.
    expect((await collect(step()(call, answering(1))))[0]).toMatchObject({
      requests: { limit: 3, remaining: 1 },
    });
    await collect(step()(sibling, answering(1)));
    expect((await collect(step()(sibling, answering(1))))[0]?.type).toBe("guardrail");
  });

  it("reports tokens used so far in the window, the tightest of tenant and key", async () => {
    const call = callUnder(({ tenantId, keyId }) => [
      tenantLimit(tenantId, { tokensPerMinute: 50 }),
      keyLimit(keyId, { tokensPerMinute: 100, requestsPerMinute: 60 }),
    ]);
    expect((await collect(step()(call, answering(30))))[0]).toEqual({
      type: "rate_limit_state",
      requests: { limit: 60, remaining: 59, resetSeconds: 20 },
      tokens: { limit: 50, remaining: 50, resetSeconds: 20 },
    });
    // 30 tokens counted on both: tenant 50 − 30 = 20, key 100 − 30 = 70.
    expect((await collect(step()(call, answering(10))))[0]).toEqual({
      type: "rate_limit_state",
      requests: { limit: 60, remaining: 58, resetSeconds: 20 },
      tokens: { limit: 50, remaining: 20, resetSeconds: 20 },
    });
    expect((await collect(step()(call, answering(10))))[0]).toMatchObject({ tokens: { remaining: 10 } });
  });

  it("yields no state when no per-minute limit applies", async () => {
    const call = callUnder(({ tenantId }) => [tenantLimit(tenantId, { dailyHardUsd: "5" })]);
    expect((await collect(step()(call, answering(5)))).map((e) => e.type)).toEqual(["text", "done"]);
  });
});

describe("rate limits without counters", () => {
  const down: CounterStore = {
    take: () => Promise.reject(new Error("down")),
    add: () => Promise.reject(new Error("down")),
    read: () => Promise.reject(new Error("down")),
    lease: () => Promise.reject(new Error("down")),
  };

  // A hard limit fails closed once this instance's leased allowance is spent (here it holds none).
  it("refuses the call under a hard per-minute limit when the counters are unreachable and nothing is held", async () => {
    const call = callUnder(({ keyId }) => [keyLimit(keyId, { requestsPerMinute: 3 })]);
    const events = await collect(rateLimitStep(() => down, now)(call, answering(5)));
    expect(events.map((e) => e.type)).toEqual(["guardrail", "error"]);
    expect(events[1]).toMatchObject({
      type: "error",
      error: { class: "limits_unavailable", status: 429, retryAfterSeconds: 5 },
    });
  });
});
