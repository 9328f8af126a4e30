// The lean server (npm run gateway) and the worker (npm run worker) as the operator runs them, in child processes:
// their probes while starting and draining, and what SIGTERM leaves in the ledger. Each gets its own database:
// PostgreSQL when the run has one (TEST_DATABASE_URL), else an embedded PGlite directory.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { eq, inArray } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DatabaseHandle, databaseOptionsFromEnv, openDatabase } from "@/db/client";
import { prepareDatabase } from "@/db/migrate";
import { appUser, sysAgentTurn, tenant } from "@/db/schema";
import { seedDemoData } from "@/features/demo/server";
import { createApiKey } from "@/features/keys/server/keys";
import { createSchedule } from "@/lib/agent/schedules";
import { createConversation } from "@/lib/governance/conversations";
import type { FakeProvider } from "../fakes/http";
import { startFakeOpenAI } from "../fakes/openai";
import { postgresAdminUrl } from "../helpers/db";
import { serverDatabase } from "../helpers/server-database";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const scripts = (JSON.parse(readFileSync("package.json", "utf8")) as { scripts: Record<string, string> })
  .scripts;
const MIGRATION_LOCK_ID = 727_100_001;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) =>
    child.exitCode !== null ? resolve(child.exitCode) : child.once("exit", (code) => resolve(code)),
  );

describe("the lean server and the worker, started and stopped as processes", () => {
  let work: string;
  let env: NodeJS.ProcessEnv;
  let fake: FakeProvider;
  let dropDatabase = async () => {};
  let secret: string;
  let keyId: string;
  let acmeId: string;
  let memberId: string;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    work = mkdtempSync(path.join(tmpdir(), "tollgate-lifecycle-"));
    fake = await startFakeOpenAI();
    const gatewayConfig = path.join(work, "gateway.config.json");
    writeFileSync(
      gatewayConfig,
      JSON.stringify({
        providers: { fake: { type: "openai", baseUrl: fake.url, apiKeyEnv: "LIFECYCLE_FAKE_KEY" } },
        models: { "gpt-fake": { candidates: [{ provider: "fake", model: "gpt-4o-mini" }] } },
        defaultModel: "gpt-fake",
        retry: { maxRetries: 0 },
      }),
    );
    env = {
      ...process.env,
      LOG_LEVEL: "warn",
      GATEWAY_CONFIG: gatewayConfig,
      LIFECYCLE_FAKE_KEY: "sk-fake",
      // The demo accounts on PostgreSQL too (seeded there only when asked for).
      SEED_DEMO: "1",
      SEED_SAMPLE_TURNS: "0",
      TOLLGATE_SHUTDOWN_TIMEOUT_MS: "4000",
    };
    dropDatabase = await serverDatabase(env, {
      adminUrl: postgresAdminUrl,
      prefix: "tollgate_lifecycle",
      work,
    });
    await withDatabase(async (handle) => {
      await prepareDatabase(handle, { afterMigrations: (h) => seedDemoData(h, { sampleTurns: 0 }) });
      const [acme] = await handle.db.select().from(tenant).where(eq(tenant.slug, "acme"));
      const [admin] = await handle.db.select().from(appUser).where(eq(appUser.email, "admin@acme.test"));
      const [member] = await handle.db.select().from(appUser).where(eq(appUser.email, "member@acme.test"));
      acmeId = acme!.id;
      memberId = member!.id;
      const key = await createApiKey(handle.db, {
        tenantId: acmeId,
        name: "lifecycle",
        createdBy: admin!.id,
      });
      secret = key.secret;
      keyId = key.key.id;
    });
  }, 120_000);

  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
    await fake?.close();
    await dropDatabase();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  /** The embedded database allows one process at a time: opened only while no server runs. */
  async function withDatabase<T>(fn: (handle: DatabaseHandle) => Promise<T>): Promise<T> {
    const handle = await openDatabase(databaseOptionsFromEnv(env));
    try {
      return await fn(handle);
    } finally {
      await handle.close();
    }
  }

  /** A package.json script (`node … server/x.ts`) on this node, so the signal reaches the process itself. */
  function run(script: string, extra: Record<string, string>): ChildProcess {
    const child = spawn(process.execPath, scripts[script]!.split(/\s+/).slice(1), {
      env: { ...env, ...extra },
      stdio: ["ignore", "inherit", "inherit"],
    });
    children.push(child);
    return child;
  }

  async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
    const end = Date.now() + ms;
    for (;;) {
      try {
        const value = await probe();
        if (value !== undefined) return value;
      } catch {}
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await sleep(50);
    }
  }

  const chat = (base: string, content: string) =>
    fetch(`${base}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-fake", stream: true, messages: [{ role: "user", content }] }),
    });

  it("lean server: not ready while starting, ready, then draining on SIGTERM; a stream that ends in time is answered, one that does not is interrupted; no row lost", async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    // On PostgreSQL, start-up is held at its migrations (another process holds their lock) until released.
    let release = async () => {};
    if (env.DATABASE_URL) {
      const sql = postgres(env.DATABASE_URL, { max: 1, onnotice: () => {} });
      const held = await sql.reserve();
      await held`select pg_advisory_lock(${MIGRATION_LOCK_ID})`;
      release = async () => {
        await held`select pg_advisory_unlock(${MIGRATION_LOCK_ID})`;
        held.release();
        await sql.end();
      };
    }
    const lean = run("gateway", { GATEWAY_PORT: String(port) });
    await until("liveness", async () => ((await fetch(`${base}/health/live`)).ok ? true : undefined));
    if (env.DATABASE_URL) {
      const ready = await fetch(`${base}/health/ready`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual({ ready: false, reason: "starting" });
      const call = await chat(base, "too early");
      expect(call.status).toBe(503);
      expect(call.headers.get("retry-after")).toBe("1");
      await release();
    }
    await until("readiness", async () => ((await fetch(`${base}/health/ready`)).ok ? true : undefined));
    expect(await (await fetch(`${base}/health/ready`)).json()).toEqual({ ready: true, reason: null });

    // Two streams in flight at the signal: one ends 1.5 s later, one would take 12 s (past the 4 s deadline).
    const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(" ");
    fake.enqueue({ kind: "text", text: words(10), chunkDelayMs: 150 });
    const short = await chat(base, "short");
    fake.enqueue({ kind: "text", text: words(60), chunkDelayMs: 200 });
    const long = await chat(base, "long");
    expect([short.status, long.status]).toEqual([200, 200]);
    const shortText = short.text();
    const longText = long.text().catch(() => "");
    lean.kill("SIGTERM");
    await sleep(200);
    // Draining: not ready, still live, new calls refused with a Retry-After and the connection closed.
    const ready = await fetch(`${base}/health/ready`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ ready: false, reason: "draining" });
    expect((await fetch(`${base}/health/live`)).status).toBe(200);
    const refused = await chat(base, "too late");
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(refused.headers.get("connection")).toBe("close");

    expect(await shortText).toContain("data: [DONE]");
    expect(await longText).not.toContain("w59");
    const code = await Promise.race([exited(lean), sleep(15_000).then(() => "still running")]);
    expect(code).toBe(0);
    const rows = await withDatabase((handle) =>
      handle.db
        .select({ id: sysAgentTurn.id, status: sysAgentTurn.status })
        .from(sysAgentTurn)
        .where(inArray(sysAgentTurn.apiKeyId, [keyId])),
    );
    expect(rows.map((r) => r.status).sort()).toEqual(["interrupted", "success"]);
    expect(rows.find((r) => r.status === "success")?.id).toBe(short.headers.get("x-request-id"));
    expect(rows.find((r) => r.status === "interrupted")?.id).toBe(long.headers.get("x-request-id"));
  }, 120_000);

  it("worker: runs a due clock schedule, and SIGTERM during its turn leaves it interrupted, not running", async () => {
    const conversationId = await withDatabase(async (handle) => {
      const conversation = await createConversation(handle.db, { tenantId: acmeId, userId: memberId });
      await createSchedule(
        handle.db,
        {
          tenantId: acmeId,
          userId: memberId,
          conversationId: conversation.id,
          cron: "* * * * *",
          message: "tick",
        },
        new Date(Date.now() - 120_000),
      );
      return conversation.id;
    });
    // The model never answers: the turn is still running when the worker is stopped.
    fake.setDefault({ kind: "hang" });
    const before = fake.requests.length;
    const healthPort = await freePort();
    const worker = run("worker", { WORKER_HEALTH_PORT: String(healthPort), METRICS_TOKEN: "worker-metrics" });
    await until("the scheduled turn's model call", async () =>
      fake.requests.length > before ? true : undefined,
    );
    // The worker's own counters (alert deliveries, tasks, schedules) are scraped from its probe port.
    const metricsUrl = `http://127.0.0.1:${healthPort}/metrics`;
    expect((await fetch(metricsUrl)).status).toBe(401);
    const scraped = await fetch(metricsUrl, { headers: { authorization: "Bearer worker-metrics" } });
    expect(scraped.status).toBe(200);
    expect(await scraped.text()).toContain("tollgate_alert_deliveries_total");
    worker.kill("SIGTERM");
    const code = await Promise.race([exited(worker), sleep(15_000).then(() => "still running")]);
    fake.setDefault({ kind: "text", text: "ok" });
    expect(code).toBe(143);
    const turns = await withDatabase((handle) =>
      handle.db
        .select({ status: sysAgentTurn.status, source: sysAgentTurn.source })
        .from(sysAgentTurn)
        .where(eq(sysAgentTurn.conversationId, conversationId)),
    );
    expect(turns).toEqual([{ status: "interrupted", source: "schedule" }]);
  }, 120_000);
});
