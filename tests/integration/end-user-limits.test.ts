import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import Big from "big.js";
import { eq } from "drizzle-orm";
import Redis from "ioredis";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { sysAgentTurn } from "@/db/schema";
import { createApiKey } from "@/features/keys/server/keys";
import type { LimitValues } from "@/features/limits/contracts";
import { readGovernanceSettings, saveLimits } from "@/features/limits/server/settings";
import { budgetView } from "@/features/v1/server/budget-view";
import { createV1Core } from "@/features/v1/server/handler";
import { parseGatewayConfig } from "@/lib/gateway/config";
import { Gateway } from "@/lib/gateway/gateway";
import { costOf, findPrice } from "@/lib/gateway/pricing";
import { BatchedGovernanceRecorder } from "@/lib/governance/batched-recorder";
import {
  PostgresResponseCache,
  RedisResponseCache,
  type ResponseCacheStore,
} from "@/lib/pipeline/cache-store";
import { type CounterStore, PostgresCounters, RedisCounters } from "@/lib/pipeline/counters";
import { estimateInputTokens } from "@/lib/pipeline/estimate";
import { Pipeline } from "@/lib/pipeline/pipeline";
import { serveApi } from "@/server/serve";
import type { FakeProvider } from "../fakes/http";
import { startFakeOpenAI } from "../fakes/openai";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";

const NO_LIMITS: LimitValues = {
  requestsPerMinute: null,
  tokensPerMinute: null,
  dailySoftUsd: null,
  dailyHardUsd: null,
  monthlySoftUsd: null,
  monthlyHardUsd: null,
};

/** Every database kind with its counters in PostgreSQL, and once with them in Redis when the run has one. */
const redisUrl = process.env.TEST_REDIS_URL ?? "";
const setups = [
  ...testDbKinds.map((kind) => ({ kind, redis: false, name: `${kind}` })),
  ...(redisUrl ? [{ kind: "pglite" as const, redis: true, name: "pglite with counters in redis" }] : []),
];

describe.each(setups)("per-end-user templates (limits and budgets) on $name", ({ kind, redis }) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let upstream: FakeProvider;
  let server: Server;
  let baseURL: string;
  let gateway: Gateway;
  let counters: CounterStore;
  let redisClient: Redis | undefined;
  let recorder: BatchedGovernanceRecorder;
  let acme: string;
  let admin: string;

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    upstream = await startFakeOpenAI();
    gateway = new Gateway(
      parseGatewayConfig(
        {
          providers: { up: { type: "openai", baseUrl: upstream.url } },
          models: { "team-gpt": { candidates: [{ provider: "up", model: "gpt-4o-mini" }] } },
          retry: { maxRetries: 0 },
        },
        "test",
        {},
      ),
    );
    const db = async () => app.db;
    recorder = new BatchedGovernanceRecorder(db);
    let cache: ResponseCacheStore = new PostgresResponseCache(db);
    counters = new PostgresCounters(db);
    if (redis) {
      redisClient = new Redis(redisUrl);
      const prefix = `tollgate-test-${process.pid}-${Date.now()}:`;
      counters = new RedisCounters(redisClient, prefix);
      cache = new RedisResponseCache(redisClient, prefix);
    }
    // The windows' clock is pinned mid-minute, so a minute that ends during a test cannot reset its counters.
    const pinned = Math.floor(Date.now() / 60_000) * 60_000 + 30_000;
    const pipeline = new Pipeline({
      db,
      gateway: () => gateway,
      counters: () => counters,
      cache: () => cache,
      now: () => pinned,
    });
    server = createServer(serveApi(createV1Core({ db, gateway: () => gateway, pipeline, recorder })));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    acme = await app.tenantId("acme");
    admin = await app.userId("admin@acme.test");
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await upstream.close();
    await app.close();
    await redisClient?.quit();
  });
  beforeEach(() => upstream.reset());

  const newKey = async (name: string) => createApiKey(app.db, { tenantId: acme, name, createdBy: admin });
  const template = (subjectId: string | undefined, values: Partial<LimitValues>) =>
    saveLimits(
      app.db,
      counters,
      acme,
      { scope: "end_user", ...(subjectId ? { subjectId } : {}), ...NO_LIMITS, ...values },
      admin,
    );
  /** A chat call naming its end user in OpenAI's `user` field (or none). */
  const ask = (apiKey: string, endUser: string | undefined, extra: { max_tokens?: number } = {}) =>
    new OpenAI({ apiKey, baseURL, maxRetries: 0 }).chat.completions.create({
      model: "team-gpt",
      messages: [{ role: "user", content: "hello" }],
      ...(endUser === undefined ? {} : { user: endUser }),
      ...extra,
    });
  /** Runs every call at once; what went through and what was refused, by end user. */
  const race = async (calls: [endUser: string, run: () => Promise<unknown>][]) => {
    const results = await Promise.allSettled(calls.map(([, run]) => run()));
    const by = (endUser: string, status: PromiseSettledResult<unknown>["status"]) =>
      results.filter((r, i) => calls[i]![0] === endUser && r.status === status);
    return {
      through: (endUser: string) => by(endUser, "fulfilled").length,
      refused: (endUser: string) =>
        by(endUser, "rejected").map(
          (r) => (r as PromiseRejectedResult).reason as InstanceType<typeof OpenAI.APIError>,
        ),
    };
  };

  it("admits exactly 5 of 16 concurrent calls of each of two end users under a 5 requests/minute template", async () => {
    const { secret, key } = await newKey("rpm-template");
    await template(key.id, { requestsPerMinute: 5 });
    upstream.setDefault({ kind: "text", text: "ok", delayMs: 200 });
    try {
      const calls = ["alice", "bob"].flatMap((endUser) =>
        Array.from({ length: 16 }, (): [string, () => Promise<unknown>] => [
          endUser,
          () => ask(secret, endUser),
        ]),
      );
      const outcome = await race(calls);
      for (const endUser of ["alice", "bob"]) {
        expect(outcome.through(endUser)).toBe(5);
        const refused = outcome.refused(endUser);
        expect(refused).toHaveLength(11);
        for (const error of refused) {
          expect(error).toMatchObject({ status: 429, code: "rate_limit_exceeded" });
          expect(error.message).toMatch(
            new RegExp(
              `Rate limit reached: 5 requests per minute for the end user "${endUser}" \\(key 'rpm-template' template\\)\\. Try again in \\d+ s\\.$`,
            ),
          );
        }
      }
      expect(upstream.requests).toHaveLength(10);
    } finally {
      upstream.setDefault({ kind: "text", text: "ok" });
    }
    // The key itself has no limit: a call that names no end user, or a new end user, still goes through.
    await expect(ask(secret, undefined)).resolves.toMatchObject({ object: "chat.completion" });
    await expect(ask(secret, "carol")).resolves.toMatchObject({ object: "chat.completion" });
  });

  it("admits exactly the calls that fit an end user's hard daily budget, each end user on their own", async () => {
    const { secret, key } = await newKey("budget-template");
    const maxTokens = 40;
    const body = {
      model: "team-gpt",
      messages: [{ role: "user", content: "hello" }],
      user: "alice",
      max_tokens: maxTokens,
    };
    const inputTokens = estimateInputTokens(budgetView("openai-chat", body));
    // The fake answers with exactly the usage the reservation assumes, so each call costs what it reserves
    // (the end user's name has the same length for both, so the same body size).
    const perCall = costOf(
      { inputTokens, outputTokens: maxTokens, cachedInputTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 },
      findPrice(gateway.config.prices, "up", "gpt-4o-mini")!,
    );
    const room = new Big(perCall).times(3).toFixed();
    await template(key.id, { dailyHardUsd: room });
    upstream.setDefault({
      kind: "text",
      text: "done",
      usage: { input: inputTokens, output: maxTokens },
      delayMs: 200,
    });
    try {
      const calls = ["alice", "bobby"].flatMap((endUser) =>
        Array.from({ length: 16 }, (): [string, () => Promise<unknown>] => [
          endUser,
          () => ask(secret, endUser, { max_tokens: maxTokens }),
        ]),
      );
      const outcome = await race(calls);
      for (const endUser of ["alice", "bobby"]) {
        expect(outcome.through(endUser)).toBe(3);
        const refused = outcome.refused(endUser);
        expect(refused).toHaveLength(13);
        for (const error of refused) {
          expect(error).toMatchObject({ status: 429, code: "budget_exceeded", type: "insufficient_quota" });
          expect(error.message).toContain(
            `The daily budget of the end user "${endUser}" (key 'budget-template' template) is used up`,
          );
        }
      }
      expect(upstream.requests).toHaveLength(6);
    } finally {
      upstream.setDefault({ kind: "text", text: "ok" });
    }
    // A call without an end user is not held to the template, though every end user's budget is spent.
    await expect(ask(secret, undefined, { max_tokens: maxTokens })).resolves.toMatchObject({
      object: "chat.completion",
    });
    // The limits screen: the template, and the end users' spend today from the ledger (most first).
    await recorder.flush();
    const settings = await readGovernanceSettings(app.db, counters, acme);
    expect(settings.keys.find((k) => k.id === key.id)).toMatchObject({
      limits: null,
      endUserLimits: { ...NO_LIMITS, dailyHardUsd: room },
    });
    const spent = new Map(settings.topEndUsers.map((u) => [u.endUser, u]));
    expect(spent.get("bobby")).toEqual({ endUser: "bobby", calls: 16, unpricedCalls: 0, costToday: room });
    expect(new Big(spent.get("alice")!.costToday!).gte(room)).toBe(true);
    expect(settings.topEndUsers.length).toBeLessThanOrEqual(10);
  });

  it("holds an end user to the tenant's template across every key, and refuses in Anthropic's dialect too", async () => {
    const first = await newKey("tenant-template-a");
    const second = await newKey("tenant-template-b");
    await template(undefined, { requestsPerMinute: 2 });
    try {
      // The end user from the x-tollgate-end-user header, under two keys: one counter.
      const headers = { "x-tollgate-end-user": "dora" };
      const openai = (secret: string) =>
        new OpenAI({
          apiKey: secret,
          baseURL,
          maxRetries: 0,
          defaultHeaders: headers,
        }).chat.completions.create({
          model: "team-gpt",
          messages: [{ role: "user", content: "hi" }],
        });
      await openai(first.secret);
      await openai(second.secret);
      const res = await fetch(`${baseURL}/messages`, {
        method: "POST",
        headers: {
          "x-api-key": first.secret,
          "content-type": "application/json",
          "anthropic-version": "2023-06-01",
        },
        body: JSON.stringify({
          model: "team-gpt",
          max_tokens: 16,
          messages: [{ role: "user", content: "hi" }],
          metadata: { user_id: "dora" },
        }),
      });
      expect(res.status).toBe(429);
      expect(await res.json()).toMatchObject({
        type: "error",
        error: {
          type: "rate_limit_error",
          message: expect.stringContaining(`for the end user "dora" (the tenant's template)`),
        },
      });
      // Another end user, and a call naming none, are not held back by dora's window.
      await expect(ask(second.secret, "erin")).resolves.toMatchObject({ object: "chat.completion" });
      await expect(ask(second.secret, undefined)).resolves.toMatchObject({ object: "chat.completion" });
      expect(upstream.requests).toHaveLength(4);
      const settings = await readGovernanceSettings(app.db, counters, acme);
      expect(settings.tenantEndUserLimits).toEqual({ ...NO_LIMITS, requestsPerMinute: 2 });
    } finally {
      await template(undefined, {});
    }
    expect((await readGovernanceSettings(app.db, counters, acme)).tenantEndUserLimits).toBeNull();
  });

  it("starts a template set mid-day from what each end user already spent today under its key", async () => {
    const { secret, key } = await newKey("seeded");
    upstream.setDefault({ kind: "text", text: "ok", usage: { input: 1000, output: 1000 } });
    try {
      await ask(secret, "frank", { max_tokens: 1000 });
      await recorder.flush();
      const [row] = await app.db.select().from(sysAgentTurn).where(eq(sysAgentTurn.apiKeyId, key.id));
      expect(new Big(row!.cost!).gt(0)).toBe(true);
      // A hard daily budget of exactly what frank spent: no room left for him, all of it for gina.
      await template(key.id, { dailyHardUsd: row!.cost! });
      await expect(ask(secret, "frank", { max_tokens: 10 })).rejects.toMatchObject({
        status: 429,
        code: "budget_exceeded",
        message: expect.stringContaining(`The daily budget of the end user "frank" (key 'seeded' template)`),
      });
      await expect(ask(secret, "gina", { max_tokens: 10 })).resolves.toMatchObject({
        object: "chat.completion",
      });
    } finally {
      upstream.setDefault({ kind: "text", text: "ok" });
    }
  });

  it("keeps a long end user apart from another with the same first characters", async () => {
    const { secret, key } = await newKey("long-names");
    await template(key.id, { requestsPerMinute: 1 });
    const stem = "u".repeat(200);
    await ask(secret, `${stem}-1`);
    await ask(secret, `${stem}-2`);
    await expect(ask(secret, `${stem}-1`)).rejects.toMatchObject({
      status: 429,
      message: expect.stringContaining(`the end user "${"u".repeat(63)}…" (key 'long-names' template)`),
    });
    await recorder.flush();
    const rows = await app.db.select().from(sysAgentTurn).where(eq(sysAgentTurn.apiKeyId, key.id));
    expect(rows.map((r) => r.errorClass).sort()).toEqual([null, null, "rate_limit_exceeded"]);
  });
});
