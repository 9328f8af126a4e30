import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import Big from "big.js";
import { and, eq } from "drizzle-orm";
import Redis from "ioredis";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { sysAgentAudit, sysAgentTurn, tenant } from "@/db/schema";
import { createApiKey } from "@/features/keys/server/keys";
import { readGovernanceSettings, saveLimits, saveTenantSettings } from "@/features/limits/server/settings";
import { budgetView } from "@/features/v1/server/budget-view";
import { createV1Core } from "@/features/v1/server/handler";
import { ToolRegistry } from "@/lib/agent/registry";
import { AgentService } from "@/lib/agent/service";
import { parseGatewayConfig } from "@/lib/gateway/config";
import { Gateway } from "@/lib/gateway/gateway";
import { costOf, findPrice } from "@/lib/gateway/pricing";
import { BatchedGovernanceRecorder } from "@/lib/governance/batched-recorder";
import { GovernanceRecorder } from "@/lib/governance/recorder";
import {
  PostgresResponseCache,
  RedisResponseCache,
  type ResponseCacheStore,
} from "@/lib/pipeline/cache-store";
import { type CounterStore, PostgresCounters, RedisCounters } from "@/lib/pipeline/counters";
import { estimateCost, estimateInputTokens } from "@/lib/pipeline/estimate";
import { Pipeline } from "@/lib/pipeline/pipeline";
import { invalidatePolicy } from "@/lib/pipeline/policy";
import { InMemoryConversationStore } from "@/lib/turns/conversation";
import { serveApi } from "@/server/serve";
import type { FakeProvider } from "../fakes/http";
import { startFakeOpenAI } from "../fakes/openai";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";

const NO_LIMITS = {
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

describe.each(setups)("the request pipeline (cache, rate limit, budget) on $name", ({ kind, redis }) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let upstream: FakeProvider;
  let server: Server;
  let baseURL: string;
  let gateway: Gateway;
  let pipeline: Pipeline;
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
          models: {
            "team-gpt": { candidates: [{ provider: "up", model: "gpt-4o-mini" }] },
            "team-cheap": { candidates: [{ provider: "up", model: "gpt-4.1-nano" }] },
          },
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
    pipeline = new Pipeline({
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
  const client = (apiKey: string) => new OpenAI({ apiKey, baseURL, maxRetries: 0 });
  const ask = (
    apiKey: string,
    content: string,
    extra: Partial<OpenAI.ChatCompletionCreateParamsNonStreaming> = {},
  ) =>
    client(apiKey).chat.completions.create({
      model: "team-gpt",
      messages: [{ role: "user", content }],
      ...extra,
    });
  // The API's recorder writes in batches: flush what has ended before reading the ledger.
  const rowsOf = async (keyId: string) => {
    await recorder.flush();
    return app.db.select().from(sysAgentTurn).where(eq(sysAgentTurn.apiKeyId, keyId));
  };
  const auditOf = async (turnId: string) => {
    await recorder.flush();
    return app.db
      .select()
      .from(sysAgentAudit)
      .where(eq(sysAgentAudit.turnId, turnId))
      .orderBy(sysAgentAudit.seq);
  };

  it("refuses the request over a key's per-minute limit with 429, Retry-After and a guardrail audit event", async () => {
    const { secret, key } = await newKey("rpm");
    await saveLimits(
      app.db,
      counters,
      acme,
      { scope: "key", subjectId: key.id, ...NO_LIMITS, requestsPerMinute: 2 },
      admin,
    );
    await ask(secret, "one");
    await ask(secret, "two");
    const res = await fetch(`${baseURL}/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "team-gpt", messages: [{ role: "user", content: "three" }] }),
    });
    expect(res.status).toBe(429);
    const retryAfter = Number(res.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect((await res.json()).error).toMatchObject({
      type: "rate_limit_error",
      code: "rate_limit_exceeded",
      message: expect.stringMatching(
        /^Rate limit reached: 2 requests per minute for this API key\. Try again in \d+ s\.$/,
      ),
    });
    // The official client sees the same: a RateLimitError with the status and code.
    await expect(ask(secret, "four")).rejects.toMatchObject({ status: 429, code: "rate_limit_exceeded" });
    expect(upstream.requests).toHaveLength(2);
    const rows = await rowsOf(key.id);
    expect(rows).toHaveLength(4);
    const refused = rows.filter((r) => r.errorClass === "rate_limit_exceeded");
    expect(refused.map((r) => r.status)).toEqual(["failed", "failed"]);
    expect((await auditOf(refused[0]!.id)).map((e) => [e.type, e.payload.code ?? e.payload.class])).toEqual([
      ["request", undefined],
      ["guardrail", "rate_limit"],
      ["error", "rate_limit_exceeded"],
    ]);
  });

  it("counts tokens per minute and refuses once the window's tokens are spent", async () => {
    const { secret, key } = await newKey("tpm");
    await saveLimits(
      app.db,
      counters,
      acme,
      { scope: "key", subjectId: key.id, ...NO_LIMITS, tokensPerMinute: 100 },
      admin,
    );
    upstream.enqueue({ kind: "text", text: "long", usage: { input: 90, output: 20 } });
    await ask(secret, "spend them");
    await expect(ask(secret, "again")).rejects.toMatchObject({
      status: 429,
      message: expect.stringContaining("100 tokens per minute for this API key"),
    });
  });

  it("lets at most the budget's room through when 50 calls race for it (reserve before, settle after)", async () => {
    const { secret, key } = await newKey("race");
    const messages = [{ role: "user" as const, content: "race" }];
    const maxTokens = 40;
    // The fake answers with exactly the usage the reservation assumes, so each call costs what it reserves.
    // A /v1 call is reserved on its whole body's size (as the SDK sends it).
    const inputTokens = estimateInputTokens(
      budgetView("openai-chat", { model: "team-gpt", messages, max_tokens: maxTokens }),
    );
    const perCall = costOf(
      { inputTokens, outputTokens: maxTokens, cachedInputTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 },
      findPrice(gateway.config.prices, "up", "gpt-4o-mini")!,
    );
    expect(
      estimateCost(
        gateway,
        budgetView("openai-chat", { model: "team-gpt", messages, max_tokens: maxTokens }),
      ),
    ).toBe(perCall);
    const room = new Big(perCall).times(10).toFixed();
    await saveLimits(
      app.db,
      counters,
      acme,
      { scope: "key", subjectId: key.id, ...NO_LIMITS, dailyHardUsd: room },
      admin,
    );
    upstream.setDefault({
      kind: "text",
      text: "done",
      usage: { input: inputTokens, output: maxTokens },
      delayMs: 300,
    });
    try {
      const results = await Promise.allSettled(
        Array.from({ length: 50 }, () => ask(secret, "race", { max_tokens: maxTokens })),
      );
      const through = results.filter((r) => r.status === "fulfilled");
      const refused = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
      expect(through).toHaveLength(10);
      expect(upstream.requests).toHaveLength(10);
      for (const r of refused)
        expect(r.reason).toMatchObject({ status: 429, code: "budget_exceeded", type: "insufficient_quota" });
      expect(refused[0]!.reason.headers.get("x-should-retry")).toBe("false");
      expect(refused[0]!.reason.message).toMatch(/The daily budget of this API key is used up/);
    } finally {
      upstream.setDefault({ kind: "text", text: "ok" });
    }
    // Every call is a ledger row; the refused ones carry their guardrail event; the spend is exact.
    await expect
      .poll(async () => (await rowsOf(key.id)).filter((r) => r.status !== "running").length)
      .toBe(50);
    const rows = await rowsOf(key.id);
    expect(rows.filter((r) => r.status === "success")).toHaveLength(10);
    const refusedRows = rows.filter((r) => r.errorClass === "budget_exceeded");
    expect(refusedRows).toHaveLength(40);
    await recorder.flush();
    const guardrails = await app.db
      .select()
      .from(sysAgentAudit)
      .where(and(eq(sysAgentAudit.tenantId, acme), eq(sysAgentAudit.type, "guardrail")));
    const refusedIds = new Set(refusedRows.map((r) => r.id));
    expect(
      guardrails.filter((g) => refusedIds.has(g.turnId) && g.payload.code === "budget_hard"),
    ).toHaveLength(40);
    const settings = await readGovernanceSettings(app.db, counters, acme);
    expect(settings.keys.find((k) => k.id === key.id)!.limits!.spentToday).toBe(room);
  });

  it("warns past a soft budget (header and audit) and still answers", async () => {
    const { secret, key } = await newKey("soft");
    await saveLimits(
      app.db,
      counters,
      acme,
      { scope: "key", subjectId: key.id, ...NO_LIMITS, monthlySoftUsd: "0.0000001" },
      admin,
    );
    const { data, response } = await client(secret)
      .chat.completions.create({ model: "team-gpt", messages: [{ role: "user", content: "hi" }] })
      .withResponse();
    expect(data.choices[0]!.message.content).toBe("ok");
    expect(response.headers.get("x-tollgate-warning")).toMatch(
      /monthly budget of this API key is past its soft limit/,
    );
    const events = await auditOf(response.headers.get("x-request-id")!);
    expect(events.map((e) => [e.type, e.payload.code])).toEqual([
      ["request", undefined],
      ["guardrail", "budget_soft"],
    ]);
  });

  it("answers an exact repeat from the cache for an opted-in alias: no upstream call, cost 0, marked in the ledger", async () => {
    const { secret, key } = await newKey("cache");
    await saveTenantSettings(
      app.db,
      acme,
      { retentionDays: 90, cacheAliases: ["team-cheap"], cacheTtlSeconds: 600 },
      ["team-gpt", "team-cheap"],
    );
    try {
      upstream.setDefault({ kind: "text", text: "Paris.", usage: { input: 20, output: 2 } });
      const question = {
        model: "team-cheap",
        messages: [{ role: "user" as const, content: "Capital of France?" }],
      };
      const first = await client(secret).chat.completions.create(question).withResponse();
      const second = await client(secret).chat.completions.create(question).withResponse();
      expect(second.data.choices[0]!.message.content).toBe("Paris.");
      expect(first.response.headers.get("x-tollgate-cache")).toBeNull();
      expect(second.response.headers.get("x-tollgate-cache")).toBe("hit");
      expect(upstream.requests).toHaveLength(1);
      // The cache is keyed on the whole body: the streamed form is an entry of its own, replayed as it streamed.
      const streamedTwice: string[] = [];
      for (let i = 0; i < 2; i++) {
        let streamed = "";
        for await (const chunk of await client(secret).chat.completions.create({ ...question, stream: true }))
          streamed += chunk.choices[0]?.delta.content ?? "";
        streamedTwice.push(streamed);
      }
      expect(streamedTwice).toEqual(["Paris.", "Paris."]);
      expect(upstream.requests).toHaveLength(2);
      // A different question, another alias, or Cache-Control: no-cache all ask the provider.
      await client(secret).chat.completions.create({
        ...question,
        messages: [{ role: "user", content: "And Spain?" }],
      });
      await client(secret).chat.completions.create({ ...question, model: "team-gpt" });
      await client(secret).chat.completions.create(question, { headers: { "cache-control": "no-cache" } });
      expect(upstream.requests).toHaveLength(5);

      const rows = await rowsOf(key.id);
      const hit = rows.find((r) => r.id === second.response.headers.get("x-request-id"))!;
      expect(hit).toMatchObject({ status: "success", cacheHits: 1, cost: "0.0000000000", inputTokens: 0 });
      const miss = rows.find((r) => r.id === first.response.headers.get("x-request-id"))!;
      expect(miss.cacheHits).toBe(0);
      expect(Number(miss.cost)).toBeGreaterThan(0);
      expect(rows.filter((r) => r.cacheHits === 1)).toHaveLength(2);
    } finally {
      upstream.setDefault({ kind: "text", text: "ok" });
      await app.db.update(tenant).set({ cacheAliases: [] }).where(eq(tenant.id, acme));
      invalidatePolicy();
    }
  });

  it("refuses an unknown cache alias, soft above hard, and another tenant's key, naming the problem", async () => {
    await expect(
      saveTenantSettings(app.db, acme, { retentionDays: 30, cacheAliases: ["nope"], cacheTtlSeconds: 60 }, [
        "team-gpt",
      ]),
    ).rejects.toMatchObject({
      status: 422,
      extra: { fields: { cacheAliases: [expect.stringContaining("nope")] } },
    });
    const globex = await app.tenantId("globex");
    const { key } = await newKey("not globex's");
    await expect(
      saveLimits(
        app.db,
        counters,
        globex,
        { scope: "key", subjectId: key.id, ...NO_LIMITS, requestsPerMinute: 5 },
        admin,
      ),
    ).rejects.toMatchObject({ status: 404 });
  });

  it("wraps drawer turns too: a user's per-minute limit refuses the next turn with a guardrail event", async () => {
    const member = await app.userId("member@acme.test");
    await saveLimits(
      app.db,
      counters,
      acme,
      { scope: "user", subjectId: member, ...NO_LIMITS, requestsPerMinute: 1 },
      admin,
    );
    const agent = new AgentService({
      gateway,
      pipeline,
      registry: new ToolRegistry(),
      store: new InMemoryConversationStore(),
      observer: new GovernanceRecorder(async () => app.db),
    });
    const turn = async (message: string) => {
      const events = [];
      for await (const e of agent.send(
        {
          tenantId: acme,
          userId: member,
          role: "member",
          conversationId: "0193f3c0-0000-7000-8000-000000000001",
        },
        { message, model: "team-gpt" },
        new AbortController().signal,
      ))
        events.push(e);
      return events;
    };
    const first = await turn("hello");
    expect(first.find((e) => e.type === "done")).toMatchObject({ summary: { status: "success" } });
    const second = await turn("hello again");
    expect(second.map((e) => e.type)).toEqual(["turn", "guardrail", "error", "done"]);
    expect(second[1]).toMatchObject({
      code: "rate_limit",
      message: expect.stringContaining("for this user"),
    });
    const turnId = (second[0] as { turnId: string }).turnId;
    await expect
      .poll(async () => (await auditOf(turnId)).map((e) => e.type))
      .toEqual(["request", "guardrail", "model_call", "error"]);
    const [row] = await app.db.select().from(sysAgentTurn).where(eq(sysAgentTurn.id, turnId));
    expect(row).toMatchObject({ source: "drawer", status: "failed", errorClass: "rate_limit_exceeded" });
    await saveLimits(app.db, counters, acme, { scope: "user", subjectId: member, ...NO_LIMITS }, admin);
  });
});
