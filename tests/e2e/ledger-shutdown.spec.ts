// The API ledger against the production build (`next start`): SIGTERM in the middle of a load of /v1 calls
// loses no answered call and doubles none, and /api/health counts a drawer write failure (the failure counters
// are shared by every route bundle). The SIGTERM test starts its own server (on E2E_PORT + 3) with its own
// database: Postgres when the run has one (TEST_DATABASE_URL or DATABASE_URL), else a PGlite directory. The
// lean server (npm run gateway) gets the same test, on E2E_PORT + 4.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { inArray } from "drizzle-orm";
import postgres from "postgres";
import { seedDemoData } from "@/features/demo/server";
import { createApiKey } from "@/features/keys/server/keys";
import { type DatabaseHandle, databaseOptionsFromEnv, openDatabase } from "../../db/client";
import { prepareDatabase } from "../../db/migrate";
import { apiKey, appUser, sysAgentTurn, tenant } from "../../db/schema";
import type { FakeProvider } from "../fakes/http";
import { startFakeOpenAI } from "../fakes/openai";
import { serverDatabase } from "../helpers/server-database";
import { signInAs } from "./pages";

const port = Number(process.env.E2E_PORT ?? 3100) + 3;
const base = `http://127.0.0.1:${port}`;
const adminUrl = process.env.TEST_DATABASE_URL || process.env.DATABASE_URL || "";
const NEXT_BIN = path.join(process.cwd(), "node_modules", "next", "dist", "bin", "next");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test.describe("the API ledger when the production server is stopped", () => {
  let work: string;
  let env: NodeJS.ProcessEnv;
  let fake: FakeProvider;
  let dropDatabase = async () => {};
  let secret: string;
  let leanSecret: string;
  let leanKeyId: string;

  test.beforeAll(async () => {
    work = mkdtempSync(path.join(tmpdir(), "tollgate-shutdown-"));
    fake = await startFakeOpenAI();
    // Each answer takes a little while, so calls are in flight when the signal comes.
    fake.setDefault({ kind: "text", text: "ok", delayMs: 15 });
    const gatewayConfig = path.join(work, "gateway.config.json");
    writeFileSync(
      gatewayConfig,
      JSON.stringify({
        providers: { fake: { type: "openai", baseUrl: fake.url, apiKeyEnv: "E2E_FAKE_OPENAI_KEY" } },
        models: { "gpt-fake": { candidates: [{ provider: "fake", model: "gpt-4o-mini" }] } },
        defaultModel: "gpt-fake",
        retry: { maxRetries: 0 },
      }),
    );
    env = {
      ...process.env,
      AUTH_SECRET: "e2e-only-secret-not-for-production-0123456789",
      NEXT_TELEMETRY_DISABLED: "1",
      LOG_LEVEL: "warn",
      GATEWAY_CONFIG: gatewayConfig,
      E2E_FAKE_OPENAI_KEY: "sk-e2e-fake",
      // The demo accounts on PostgreSQL too (seeded there only when asked for).
      SEED_DEMO: "1",
      SEED_SAMPLE_TURNS: "0",
    };
    dropDatabase = await serverDatabase(env, { adminUrl, prefix: "tollgate_e2e_shutdown", work });
    await withDatabase(async (handle) => {
      await prepareDatabase(handle, { afterMigrations: (h) => seedDemoData(h, { sampleTurns: 0 }) });
      const [acme] = await handle.db
        .select()
        .from(tenant)
        .where(inArray(tenant.slug, ["acme"]));
      const [admin] = await handle.db
        .select()
        .from(appUser)
        .where(inArray(appUser.email, ["admin@acme.test"]));
      secret = (await createApiKey(handle.db, { tenantId: acme!.id, name: "shutdown", createdBy: admin!.id }))
        .secret;
      const lean = await createApiKey(handle.db, { tenantId: acme!.id, name: "lean", createdBy: admin!.id });
      leanSecret = lean.secret;
      leanKeyId = lean.key.id;
    });
  });
  test.afterAll(async () => {
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

  async function startServer(): Promise<ChildProcess> {
    // node on Next's own binary (not npx), so the signal reaches the server itself.
    const child = spawn(process.execPath, [NEXT_BIN, "start", "-p", String(port)], {
      env,
      stdio: ["ignore", "inherit", "inherit"],
    });
    for (let i = 0; i < 240; i++) {
      if (child.exitCode !== null) throw new Error(`next start exited with ${child.exitCode}`);
      try {
        if ((await fetch(`${base}/api/health`)).ok) return child;
      } catch {}
      await sleep(250);
    }
    child.kill("SIGKILL");
    throw new Error("next start did not become healthy in 60 s (is there a build? run `npx next build`)");
  }

  const exited = (child: ChildProcess) =>
    new Promise<number | null>((resolve) =>
      child.exitCode !== null ? resolve(child.exitCode) : child.once("exit", (code) => resolve(code)),
    );

  test("SIGTERM during a load of /v1 calls: every call answered 200 has exactly one ledger row after a restart", async () => {
    test.setTimeout(180_000);
    let server = await startServer();
    const answered: string[] = [];
    let attempts = 0;
    // Each worker sends calls back to back, before the signal and after it, until the server is gone: a
    // client that keeps its connection alive keeps next start from closing, so the process must still end
    // (with its ledger written) within its shutdown deadline.
    const worker = async () => {
      while (server.exitCode === null && server.signalCode === null) {
        attempts += 1;
        try {
          const res = await fetch(`${base}/v1/chat/completions`, {
            method: "POST",
            headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
            body: JSON.stringify({ model: "gpt-fake", messages: [{ role: "user", content: "count me" }] }),
          });
          const body = await res.json();
          // Answered: a 200 with the whole completion read.
          if (res.status === 200 && body.choices?.[0]?.message?.content === "ok")
            answered.push(res.headers.get("x-request-id")!);
        } catch {
          // Refused or cut by the stopping server: not answered.
          await sleep(20);
        }
      }
    };
    const workers = Array.from({ length: 16 }, worker);
    // Mid-load: once a steady stream of calls has been answered.
    while (answered.length < 300) await sleep(10);
    // On PostgreSQL, the ledger's writer is also held up for 2 s from the signal on (a lock on the ledger
    // table), so rows are still waiting when the server wants to exit.
    let release = async () => {};
    if (env.DATABASE_URL) {
      const lock = postgres(env.DATABASE_URL, { max: 1, onnotice: () => {} });
      const reserved = await lock.reserve();
      await reserved`begin`;
      await reserved`lock table sys_agent_turn in exclusive mode`;
      release = async () => {
        await reserved`commit`;
        reserved.release();
        await lock.end();
      };
    }
    server.kill("SIGTERM");
    await sleep(2_000);
    await release();
    const code = await Promise.race([exited(server), sleep(30_000).then(() => "still running")]);
    if (code === "still running") server.kill("SIGKILL");
    await Promise.all(workers);
    // next start's exit code for SIGTERM, within the 10 s deadline, after the ledger was written.
    expect(code).toBe(143);

    // Restart on the same database, then stop it again to read the ledger.
    server = await startServer();
    server.kill("SIGTERM");
    await exited(server);
    const rows = await withDatabase((handle) =>
      handle.db
        .select({ id: sysAgentTurn.id })
        .from(sysAgentTurn)
        .where(inArray(sysAgentTurn.apiKeyId, handle.db.select({ id: apiKey.id }).from(apiKey))),
    );
    const recorded = new Map<string, number>();
    for (const r of rows) recorded.set(r.id, (recorded.get(r.id) ?? 0) + 1);
    const missing = answered.filter((id) => !recorded.has(id));
    expect(missing, `${missing.length} of ${answered.length} answered calls have no ledger row`).toEqual([]);
    expect([...recorded.values()].every((n) => n === 1)).toBe(true);
    expect(new Set(answered).size).toBe(answered.length);
    expect(rows.length).toBeLessThanOrEqual(attempts);
  });

  test("SIGTERM during a load of JSON and streamed calls to the lean server: one ledger row per answered call", async () => {
    test.setTimeout(120_000);
    const leanBase = `http://127.0.0.1:${port + 1}`;
    // The lean server exactly as `npm run gateway` starts it (package.json's script), on node itself.
    const script = (JSON.parse(readFileSync("package.json", "utf8")) as { scripts: Record<string, string> })
      .scripts.gateway!;
    const lean = spawn(process.execPath, script.split(/\s+/).slice(1), {
      env: { ...env, GATEWAY_PORT: String(port + 1) },
      stdio: ["ignore", "inherit", "inherit"],
    });
    for (let i = 0; ; i++) {
      if (lean.exitCode !== null) throw new Error(`the lean server exited with ${lean.exitCode}`);
      try {
        const res = await fetch(`${leanBase}/v1/models`, {
          headers: { authorization: `Bearer ${leanSecret}` },
        });
        if (res.ok) break;
      } catch {}
      if (i > 240) throw new Error("the lean server did not start in 60 s");
      await sleep(250);
    }
    const answered: string[] = [];
    let attempts = 0;
    const worker = async (n: number) => {
      for (let i = 0; lean.exitCode === null && lean.signalCode === null; i++) {
        attempts += 1;
        const stream = (n + i) % 2 === 0;
        try {
          const res = await fetch(`${leanBase}/v1/chat/completions`, {
            method: "POST",
            headers: { authorization: `Bearer ${leanSecret}`, "content-type": "application/json" },
            body: JSON.stringify({
              model: "gpt-fake",
              stream,
              messages: [{ role: "user", content: "count me" }],
            }),
          });
          const text = await res.text();
          // Answered: a 200 read to its end (a stream's [DONE], a JSON answer's content).
          if (res.status === 200 && (stream ? text.includes("data: [DONE]") : JSON.parse(text).choices?.[0]))
            answered.push(res.headers.get("x-request-id")!);
        } catch {
          await sleep(20);
        }
      }
    };
    const workers = Array.from({ length: 16 }, (_, n) => worker(n));
    while (answered.length < 300) await sleep(10);
    lean.kill("SIGTERM");
    const code = await Promise.race([exited(lean), sleep(30_000).then(() => "still running")]);
    if (code === "still running") lean.kill("SIGKILL");
    await Promise.all(workers);
    // The lean server stops itself (exit 0) once the calls in progress ended and the ledger is written.
    expect(code).toBe(0);
    const rows = await withDatabase((handle) =>
      handle.db
        .select({ id: sysAgentTurn.id })
        .from(sysAgentTurn)
        .where(inArray(sysAgentTurn.apiKeyId, [leanKeyId])),
    );
    const recorded = new Map<string, number>();
    for (const r of rows) recorded.set(r.id, (recorded.get(r.id) ?? 0) + 1);
    const missing = answered.filter((id) => !recorded.has(id));
    expect(missing, `${missing.length} of ${answered.length} answered calls have no ledger row`).toEqual([]);
    expect([...recorded.values()].every((n) => n === 1)).toBe(true);
    expect(rows.length).toBeLessThanOrEqual(attempts);
  });
});

test("/api/health counts a drawer write failure made in another route bundle", async ({ page }) => {
  await signInAs(page, "member@acme.test");
  const before = (await (await page.request.get("/api/health")).json()).governanceWriteFailures;
  // A turn whose conversation is deleted while it streams: storing its messages then fails (counted), and the
  // reply still ends normally.
  const outcome = await page.evaluate(async () => {
    const res = await fetch("/api/agent/turns", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ message: "tell me something long enough", model: "offline-demo" }),
    });
    const conversationId = res.headers.get("x-conversation-id");
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    let deleted = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      if (!deleted && text.includes("event: text")) {
        deleted = (await fetch(`/api/agent/conversations/${conversationId}`, { method: "DELETE" })).status;
      }
    }
    return { status: res.status, deleted, done: text.includes("event: done") };
  });
  expect(outcome).toEqual({ status: 200, deleted: 204, done: true });
  await expect
    .poll(
      async () => (await (await page.request.get("/api/health")).json()).governanceWriteFailures.conversation,
    )
    .toBeGreaterThan(before.conversation);
});
