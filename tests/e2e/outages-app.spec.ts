// The production build (`next start`) and the worker (`npm run worker`) while PostgreSQL and Redis go away under
// load. Both processes reach their dependencies through fault proxies (tests/fakes/fault-proxy.ts): 32 concurrent
// /v1 chat completions (half streamed) run while PostgreSQL is refused for 5 s, then black-holed for 5 s, then Redis
// is refused for 5 s. No call is answered 500; every 200 has exactly one ledger row; a hard budget is never passed;
// within 5 s of each return the app answers again and the worker is ready again, without a restart, and the worker
// leads the background work again. The same load on the lean server: tests/integration/outages.test.ts.
// Its own server (E2E_PORT + 5), worker probes (E2E_PORT + 6) and database; PostgreSQL runs only (the "outages"
// project of playwright.config.ts), Redis when TEST_REDIS_URL is set.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import Big from "big.js";
import { inArray } from "drizzle-orm";
import postgres from "postgres";
import { seedDemoData } from "@/features/demo/server";
import { createApiKey } from "@/features/keys/server/keys";
import { openDatabase } from "../../db/client";
import { prepareDatabase } from "../../db/migrate";
import { appUser, tenant, usageLimit } from "../../db/schema";
import { type FaultProxy, startFaultProxy } from "../fakes/fault-proxy";
import type { FakeProvider } from "../fakes/http";
import { startFakeOpenAI } from "../fakes/openai";
import { errorCode, type Outcome, PRICED_REPLY, tallyOutcomes, throughOutages } from "../helpers/outage-load";
import { serverDatabase } from "../helpers/server-database";

const port = Number(process.env.E2E_PORT ?? 3100) + 5;
const probePort = port + 1;
const base = `http://127.0.0.1:${port}`;
const adminUrl = process.env.TEST_DATABASE_URL || process.env.DATABASE_URL || "";
const redisUrl = process.env.TEST_REDIS_URL ?? "";
const NEXT_BIN = path.join(process.cwd(), "node_modules", "next", "dist", "bin", "next");
const WORKERS = 32;
const HARD_BUDGET_USD = "0.0004";
const LEADER_LOCK_ID = 727_100_010; // server/background BACKGROUND_LEADER_LOCK_ID
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A child process whose output is kept (the last 40 KB) for the failure message instead of flooding the run. */
function spawnKept(args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, args, { env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  const keep = (d: Buffer) => {
    out = (out + d.toString()).slice(-40_000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  return { child, output: () => out };
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) =>
    child.exitCode !== null || child.signalCode !== null
      ? resolve(child.exitCode)
      : child.once("exit", (code) => resolve(code)),
  );

test.describe("the production server and the worker while PostgreSQL and Redis go away under load", () => {
  let work: string;
  let env: NodeJS.ProcessEnv;
  let upstream: FakeProvider;
  let pg: FaultProxy;
  let redisProxy: FaultProxy | null = null;
  let dropDatabase = async () => {};
  let direct: ReturnType<typeof postgres>;
  let free: string;
  let budgeted: { secret: string; id: string };
  let app: ReturnType<typeof spawnKept> | null = null;
  let worker: ReturnType<typeof spawnKept> | null = null;

  test.beforeAll(async () => {
    test.setTimeout(180_000);
    // The config runs this spec only on PostgreSQL (PGlite is in-process: no connection to take away).
    expect(adminUrl, "a PostgreSQL run: TEST_DATABASE_URL or DATABASE_URL").not.toBe("");
    work = mkdtempSync(path.join(tmpdir(), "tollgate-outages-"));
    upstream = await startFakeOpenAI();
    upstream.setDefault(PRICED_REPLY);
    const gatewayConfig = path.join(work, "gateway.config.json");
    writeFileSync(
      gatewayConfig,
      JSON.stringify({
        providers: { fake: { type: "openai", baseUrl: upstream.url, apiKeyEnv: "E2E_FAKE_OPENAI_KEY" } },
        models: { "gpt-fake": { candidates: [{ provider: "fake", model: "gpt-4o-mini" }] } },
        defaultModel: "gpt-fake",
        // As in the lean test: one retry on a new connection for a keep-alive socket the fake closed as idle while
        // calls waited on the database, and no cooldown of the only provider (the test measures the dependencies).
        retry: { maxRetries: 1 },
        cooldown: { consecutiveFailures: 1_000, minCallsForRate: 1_000 },
      }),
    );
    const seedEnv = { ...process.env };
    dropDatabase = await serverDatabase(seedEnv, { adminUrl, prefix: "tollgate_e2e_outages", work });
    const databaseUrl = seedEnv.DATABASE_URL!;
    const handle = await openDatabase({ kind: "postgres", url: databaseUrl, max: 2 });
    try {
      await prepareDatabase(handle, { afterMigrations: (h) => seedDemoData(h, { sampleTurns: 0 }) });
      const [acme] = await handle.db
        .select()
        .from(tenant)
        .where(inArray(tenant.slug, ["acme"]));
      const [admin] = await handle.db
        .select()
        .from(appUser)
        .where(inArray(appUser.email, ["admin@acme.test"]));
      free = (
        await createApiKey(handle.db, { tenantId: acme!.id, name: "outage free", createdBy: admin!.id })
      ).secret;
      const key = await createApiKey(handle.db, {
        tenantId: acme!.id,
        name: "outage budget",
        createdBy: admin!.id,
      });
      budgeted = { secret: key.secret, id: key.key.id };
      // A new key has spent nothing: its limit row is all the budget needs (the limits API would also seed counters).
      await handle.db.insert(usageLimit).values({
        tenantId: acme!.id,
        scope: "key",
        subjectId: key.key.id,
        dailyHardUsd: HARD_BUDGET_USD,
        updatedBy: admin!.id,
      });
    } finally {
      await handle.close();
    }
    direct = postgres(databaseUrl, { max: 2, onnotice: () => {} });

    const target = new URL(databaseUrl);
    pg = await startFaultProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const through = new URL(databaseUrl);
    through.host = `127.0.0.1:${pg.port}`;
    env = {
      ...process.env,
      AUTH_SECRET: "e2e-only-secret-not-for-production-0123456789",
      NEXT_TELEMETRY_DISABLED: "1",
      LOG_LEVEL: "warn",
      GATEWAY_CONFIG: gatewayConfig,
      E2E_FAKE_OPENAI_KEY: "sk-e2e-fake",
      DATABASE_URL: through.toString(),
      SEED_DEMO: "0",
      SEED_SAMPLE_TURNS: "0",
      // The background work runs in the worker alone.
      TOLLGATE_WORKER: "external",
      // The deadlines shortened so a 5 s black hole is found inside it (the defaults are 5 s of silence + 2 s).
      DB_STATEMENT_TIMEOUT_MS: "5000",
      DB_SILENCE_MS: "1000",
      DB_PROBE_TIMEOUT_MS: "500",
      DB_CONNECT_TIMEOUT_MS: "2000",
      REDIS_COMMAND_TIMEOUT_MS: "1000",
      REDIS_CONNECT_TIMEOUT_MS: "1000",
    };
    delete env.TEST_DATABASE_URL;
    delete env.REDIS_URL;
    if (redisUrl) {
      const r = new URL(redisUrl);
      redisProxy = await startFaultProxy({ host: r.hostname, port: Number(r.port || 6379) });
      env.REDIS_URL = redisProxy.url("redis");
      env.REDIS_PREFIX = `tollgate-e2e-outages-${process.pid}-${Date.now()}:`;
    }

    app = spawnKept([NEXT_BIN, "start", "-p", String(port)], env);
    const script = (JSON.parse(readFileSync("package.json", "utf8")) as { scripts: Record<string, string> })
      .scripts.worker!;
    worker = spawnKept(script.split(/\s+/).slice(1), { ...env, WORKER_HEALTH_PORT: String(probePort) });
    for (let i = 0; ; i++) {
      if (app.child.exitCode !== null) throw new Error(`next start exited: ${app.output()}`);
      if (worker.child.exitCode !== null) throw new Error(`the worker exited: ${worker.output()}`);
      const [appUp, workerUp] = await Promise.all([
        fetch(`${base}/v1/models`, { headers: { authorization: `Bearer ${free}` } }).then(
          (r) => r.ok,
          () => false,
        ),
        workerReady(),
      ]);
      if (appUp && workerUp) break;
      if (i > 240) throw new Error("next start or the worker did not start in 60 s (is there a build?)");
      await sleep(250);
    }
  });

  test.afterAll(async () => {
    for (const p of [app, worker]) {
      if (p && p.child.exitCode === null && p.child.signalCode === null) {
        p.child.kill("SIGTERM");
        await Promise.race([exited(p.child), sleep(15_000).then(() => p.child.kill("SIGKILL"))]);
      }
    }
    await pg?.close();
    await redisProxy?.close();
    await upstream?.close();
    await direct?.end({ timeout: 2 });
    await dropDatabase();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  const workerReady = () =>
    fetch(`http://127.0.0.1:${probePort}/health/ready`).then(
      (r) => r.status === 200,
      () => false,
    );

  /** The worker leads the background work: its session holds the leader lock on the database. */
  const workerLeads = async () => {
    const rows = await direct`
      select count(*)::int as n from pg_locks l join pg_stat_activity a on a.pid = l.pid
      where l.locktype = 'advisory' and l.objid = ${LEADER_LOCK_ID} and l.granted and a.datname = current_database()`;
    return rows[0]!.n === 1;
  };

  const call = async (secret: string, stream: boolean) => {
    const res = await fetch(`${base}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({
        model: "gpt-fake",
        max_tokens: 50,
        stream,
        messages: [{ role: "user", content: "Say hi." }],
      }),
    });
    return { res, body: await res.text() };
  };

  /** How long until the app answers a call 200 again and the worker is ready again (∞ past `ms`). */
  const recoveredWithin = async (ms: number) => {
    const started = Date.now();
    let appAt = Number.POSITIVE_INFINITY;
    let workerAt = Number.POSITIVE_INFINITY;
    while (
      Date.now() - started < ms &&
      (appAt === Number.POSITIVE_INFINITY || workerAt === Number.POSITIVE_INFINITY)
    ) {
      if (appAt === Number.POSITIVE_INFINITY) {
        const { res } = await call(free, false).catch(() => ({ res: null }));
        if (res?.status === 200) appAt = Date.now() - started;
      }
      if (workerAt === Number.POSITIVE_INFINITY && (await workerReady())) workerAt = Date.now() - started;
      await sleep(100);
    }
    return { app: appAt, worker: workerAt };
  };

  test("zero 500s, one ledger row per 200, the hard budget held, and every process back within 5 s", async () => {
    test.setTimeout(240_000);
    const outcomes: Outcome[] = [];
    const failures: string[] = [];
    let running = true;
    const load = Array.from({ length: WORKERS }, async (_, n) => {
      const budgetKey = n % 4 === 0;
      const stream = n % 2 === 1;
      while (running) {
        try {
          const { res, body } = await call(budgetKey ? budgeted.secret : free, stream);
          outcomes.push({
            status: res.status,
            id: res.headers.get("x-request-id"),
            retryAfter: res.headers.get("retry-after"),
            budgetKey,
            code: res.status === 200 ? "" : errorCode(body),
          });
          if (res.status >= 500 && res.status !== 503) failures.push(`${res.status} ${body.slice(0, 300)}`);
          // A stream answered 200 must still end as a stream does; one cut short is a failure too.
          if (res.status === 200 && stream && !body.includes("data: [DONE]"))
            failures.push(`a 200 stream without its end: ${body.slice(-300)}`);
          if (res.status !== 200) await sleep(50);
        } catch (error) {
          failures.push(`transport: ${String(error)}`);
        }
      }
    });
    const recovery = await throughOutages({
      upstream,
      pg,
      redis: redisProxy,
      warmupMs: 2_000,
      recovered: () => recoveredWithin(10_000),
      stop: async () => {
        running = false;
        await Promise.all(load);
      },
    });
    console.info(
      `outages (next start + worker): ${outcomes.length} calls, ${tallyOutcomes(outcomes)}; recovery ms ${JSON.stringify(recovery)}`,
    );

    // Both processes are alive; zero 500s: every answer a success, an outage's 503 with Retry-After, or a 429.
    expect({ app: app!.child.exitCode, worker: worker!.child.exitCode }).toEqual({ app: null, worker: null });
    expect(failures).toEqual([]);
    for (const status of new Set(outcomes.map((o) => o.status))) expect([200, 429, 503]).toContain(status);
    for (const o of outcomes.filter((x) => x.status === 503)) expect(o.retryAfter).toMatch(/^\d+$/);
    expect(outcomes.filter((o) => o.status === 503).length).toBeGreaterThan(0);
    expect(outcomes.filter((o) => o.status === 200).length).toBeGreaterThan(100);

    // Within 5 s of each return the app answered 200 and the worker was ready, without a restart.
    for (const [name, r] of Object.entries(recovery))
      expect({ name, app: r.app < 5_000, worker: r.worker < 5_000 }).toEqual({
        name,
        app: true,
        worker: true,
      });
    // The worker leads the background work again (it checks its lock every 5 s).
    await expect.poll(workerLeads, { timeout: 20_000, intervals: [250] }).toBe(true);

    // Every 200 has exactly one ledger row: stopping the app writes what it still holds.
    app!.child.kill("SIGTERM");
    const code = await Promise.race([exited(app!.child), sleep(30_000).then(() => "still running")]);
    expect(code, app!.output().slice(-3_000)).toBe(143);
    const answered = outcomes.filter((o) => o.status === 200).map((o) => o.id!);
    expect(new Set(answered).size).toBe(answered.length);
    const counts = new Map<string, number>();
    for (let i = 0; i < answered.length; i += 1_000) {
      const rows = await direct<{ id: string; n: number }[]>`
        select id, count(*)::int as n from sys_agent_turn where id in ${direct(answered.slice(i, i + 1_000))}
        group by id`;
      for (const r of rows) counts.set(r.id, r.n);
    }
    const wrong = answered.filter((id) => counts.get(id) !== 1);
    expect(wrong.length, `${wrong.length} of ${answered.length} answered calls without exactly one row`).toBe(
      0,
    );

    // The hard budget was reached and never passed.
    expect(outcomes.some((o) => o.budgetKey && o.code === "budget_exceeded")).toBe(true);
    const [spent] = await direct<{ cost: string }[]>`
      select coalesce(sum(cost), 0)::text as cost from sys_agent_turn where api_key_id = ${budgeted.id}`;
    console.info(
      `outages (next start + worker): the hard-budget key spent ${spent!.cost} of ${HARD_BUDGET_USD}`,
    );
    expect(new Big(spent!.cost).lte(HARD_BUDGET_USD)).toBe(true);
  });
});
