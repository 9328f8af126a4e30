// The lean server under load while its dependencies go away: the fault proxy sits between it and PostgreSQL (and
// Redis, which holds the counters), and 32 concurrent /v1 chat completions (half streamed) run while PostgreSQL
// is refused for 5 s, then black-holed for 5 s, then Redis is refused for 5 s. No call is answered 500 (only 200,
// 503 with Retry-After, or 429); every 200 has exactly one ledger row; a hard budget is never passed; and within
// 5 s of each dependency's return a call succeeds again, without a restart.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import Big from "big.js";
import { inArray, sql } from "drizzle-orm";
import type Redis from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DatabaseHandle, openDatabase } from "@/db/client";
import { sysAgentTurn } from "@/db/schema";
import { createApiKey } from "@/features/keys/server/keys";
import { saveLimits } from "@/features/limits/server/settings";
import { createV1Api, type V1Api } from "@/features/v1/server/index";
import { parseGatewayConfig } from "@/lib/gateway/config";
import { Gateway } from "@/lib/gateway/gateway";
import { PostgresResponseCache } from "@/lib/pipeline/cache-store";
import { type CounterStore, PostgresCounters, RedisCounters } from "@/lib/pipeline/counters";
import { Pipeline } from "@/lib/pipeline/pipeline";
import { openPipelineRedis } from "@/lib/pipeline/redis";
import { serveApi } from "@/server/serve";
import { type FaultProxy, startFaultProxy } from "../fakes/fault-proxy";
import type { FakeProvider } from "../fakes/http";
import { startFakeOpenAI } from "../fakes/openai";
import { useSeededAppDatabase } from "../helpers/app-db";
import { postgresAdminUrl } from "../helpers/db";
import { errorCode, type Outcome, PRICED_REPLY, tallyOutcomes, throughOutages } from "../helpers/outage-load";

const redisUrl = process.env.TEST_REDIS_URL ?? "";
const WORKERS = 32;
const HARD_BUDGET_USD = "0.0004";
const NO_LIMITS = {
  requestsPerMinute: null,
  tokensPerMinute: null,
  dailySoftUsd: null,
  dailyHardUsd: null,
  monthlySoftUsd: null,
  monthlyHardUsd: null,
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.runIf(postgresAdminUrl)("the lean server while PostgreSQL and Redis go away under load", () => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let upstream: FakeProvider;
  let pg: FaultProxy;
  let redisProxy: FaultProxy | null = null;
  let redis: Redis | null = null;
  let handle: DatabaseHandle;
  let api: V1Api;
  let server: Server;
  let root: string;

  beforeAll(async () => {
    app = await useSeededAppDatabase("postgres");
    upstream = await startFakeOpenAI();
    // Short answers the reservation covers (max_tokens 50, 1 prompt token billed), so a hard budget holds exactly.
    upstream.setDefault(PRICED_REPLY);
    const target = new URL(app.url!);
    pg = await startFaultProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const through = new URL(app.url!);
    through.host = `127.0.0.1:${pg.port}`;
    // The deadlines shortened so a 5 s black hole is found inside it (the defaults are 5 s of silence + 2 s).
    handle = await openDatabase({
      kind: "postgres",
      url: through.toString(),
      max: 10,
      deadlines: { statementTimeoutMs: 5_000, silenceMs: 1_000, probeMs: 500, connectTimeoutMs: 2_000 },
    });
    const db = async () => handle.db;
    let counters: CounterStore = new PostgresCounters(db);
    if (redisUrl) {
      const r = new URL(redisUrl);
      redisProxy = await startFaultProxy({ host: r.hostname, port: Number(r.port || 6379) });
      redis = openPipelineRedis(redisProxy.url("redis"), {
        commandTimeoutMs: 1_000,
        connectTimeoutMs: 1_000,
      });
      counters = new RedisCounters(redis, `tollgate-outage-test-${process.pid}-${Date.now()}:`);
    }
    const gateway = new Gateway(
      parseGatewayConfig(
        {
          providers: { up: { type: "openai", baseUrl: upstream.url } },
          models: { "team-gpt": { candidates: [{ provider: "up", model: "gpt-4o-mini" }] } },
          // Under load, a keep-alive socket the fake closed as idle (while the calls waited on the database) can be
          // reused at that moment (ECONNRESET): one retry on a new connection, as a gateway would do, and no
          // cooldown of the only provider, so the test measures the database and Redis, not the upstream.
          retry: { maxRetries: 1 },
          cooldown: { consecutiveFailures: 1_000, minCallsForRate: 1_000 },
        },
        "test",
        {},
      ),
    );
    const pipeline = new Pipeline({
      db,
      gateway: () => gateway,
      counters: () => counters,
      cache: () => new PostgresResponseCache(db),
    });
    api = createV1Api({ db, gateway: () => gateway, pipeline });
    server = createServer(serveApi(api.core));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    root = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    const acme = await app.tenantId("acme");
    const admin = await app.userId("admin@acme.test");
    free = await createApiKey(app.db, { tenantId: acme, name: "outage free", createdBy: admin });
    budgeted = await createApiKey(app.db, { tenantId: acme, name: "outage budget", createdBy: admin });
    await saveLimits(
      app.db,
      counters,
      acme,
      { scope: "key", subjectId: budgeted.key.id, ...NO_LIMITS, dailyHardUsd: HARD_BUDGET_USD },
      admin,
    );
  }, 60_000);
  afterAll(async () => {
    await pg?.set("pass");
    await redisProxy?.set("pass");
    await new Promise((resolve) => server?.close(resolve));
    await api?.flush();
    await handle?.close();
    redis?.disconnect();
    await pg?.close();
    await redisProxy?.close();
    await upstream?.close();
    await app?.close();
  });

  let free: Awaited<ReturnType<typeof createApiKey>>;
  let budgeted: Awaited<ReturnType<typeof createApiKey>>;

  const call = async (secret: string, stream: boolean) => {
    const res = await fetch(`${root}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({
        model: "team-gpt",
        max_tokens: 50,
        stream,
        messages: [{ role: "user", content: "Say hi." }],
      }),
    });
    const body = await res.text();
    return { res, body };
  };

  /** Calls until one is answered 200; how long it took (∞ past `ms`). */
  const recoveredWithin = async (ms: number) => {
    const started = Date.now();
    while (Date.now() - started < ms) {
      const { res } = await call(free.secret, false).catch(() => ({ res: null }));
      if (res?.status === 200) return Date.now() - started;
      await sleep(100);
    }
    return Number.POSITIVE_INFINITY;
  };

  it("answers 200, 503 with Retry-After or 429, writes one ledger row per 200, holds the budget, and recovers", async () => {
    const outcomes: Outcome[] = [];
    const failures: string[] = [];
    let running = true;
    const worker = async (n: number) => {
      const budgetKey = n % 4 === 0;
      const stream = n % 2 === 1;
      while (running) {
        try {
          const { res, body } = await call(budgetKey ? budgeted.secret : free.secret, stream);
          outcomes.push({
            status: res.status,
            id: res.headers.get("x-request-id"),
            retryAfter: res.headers.get("retry-after"),
            budgetKey,
            code: res.status === 200 ? null : errorCode(body),
          });
          if (res.status >= 500 && res.status !== 503) failures.push(`${res.status} ${body.slice(0, 300)}`);
          if (res.status !== 200) await sleep(50);
        } catch (error) {
          failures.push(`transport: ${String(error)}`);
        }
      }
    };
    const load = Array.from({ length: WORKERS }, (_, n) => worker(n));
    const recovery = await throughOutages({
      upstream,
      pg,
      redis: redisProxy,
      warmupMs: 1_000,
      recovered: () => recoveredWithin(10_000),
      stop: async () => {
        running = false;
        await Promise.all(load);
      },
    });

    console.info(
      `outages: ${outcomes.length} calls, ${tallyOutcomes(outcomes)}; recovery ms ${JSON.stringify(recovery)}`,
    );
    // Zero 500s: every answer was a success, an outage's 503 with Retry-After, or a limit's 429.
    expect(failures).toEqual([]);
    const statuses = new Set(outcomes.map((o) => o.status));
    for (const status of statuses) expect([200, 429, 503]).toContain(status);
    for (const o of outcomes.filter((x) => x.status === 503)) expect(o.retryAfter).toMatch(/^\d+$/);
    // The outages were felt (503s) and served through (200s).
    expect(outcomes.filter((o) => o.status === 503).length).toBeGreaterThan(0);
    expect(outcomes.filter((o) => o.status === 200).length).toBeGreaterThan(100);

    // Within 5 s of each dependency's return, a call succeeded again (no restart).
    for (const [name, ms] of Object.entries(recovery))
      expect({ name, ms: ms < 5_000 }).toEqual({ name, ms: true });

    // Every 200 has exactly one ledger row (written once the database was back).
    await api.flush();
    expect(api.recorder.stats()).toMatchObject({ rowsWaiting: 0, rowsFailed: 0 });
    const answered = outcomes.filter((o) => o.status === 200).map((o) => o.id!);
    expect(new Set(answered).size).toBe(answered.length);
    const counts = new Map<string, number>();
    for (let i = 0; i < answered.length; i += 1_000) {
      const rows = await app.db
        .select({ id: sysAgentTurn.id, n: sql<number>`count(*)::int` })
        .from(sysAgentTurn)
        .where(inArray(sysAgentTurn.id, answered.slice(i, i + 1_000)))
        .groupBy(sysAgentTurn.id);
      for (const r of rows) counts.set(r.id, r.n);
    }
    expect(answered.filter((id) => counts.get(id) !== 1)).toEqual([]);

    // The hard budget was reached and never passed: calls keep their limits through the outage (the policy this
    // process read last stands in; without one a call is refused), with priced answers all along.
    const [spent] = await app.db
      .select({ cost: sql<string>`coalesce(sum(${sysAgentTurn.cost}), 0)::text` })
      .from(sysAgentTurn)
      .where(sql`${sysAgentTurn.apiKeyId} = ${budgeted.key.id}`);
    expect(outcomes.some((o) => o.budgetKey && o.code === "budget_exceeded")).toBe(true);
    console.info(`outages: the hard-budget key spent ${spent!.cost} of ${HARD_BUDGET_USD}`);
    expect(new Big(spent!.cost).lte(HARD_BUDGET_USD)).toBe(true);
  }, 60_000);
});
