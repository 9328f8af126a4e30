// kill -9 in the middle of a drawer turn, against the production build: after a restart on the same
// database the user's message is in the conversation and the turn is `interrupted` within a minute.
// This spec runs its own `next start` (on E2E_PORT + 3) so it can kill and restart it.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { serverDatabase } from "../helpers/server-database";
import { signInAs } from "./pages";

const port = Number(process.env.E2E_PORT ?? 3100) + 3;
const base = `http://127.0.0.1:${port}`;
const adminUrl = process.env.TEST_DATABASE_URL || process.env.DATABASE_URL || "";

test.use({ baseURL: base });

let work = "";
let env: NodeJS.ProcessEnv = { ...process.env };
let server: ChildProcess | undefined;
let dropDatabase = async () => {};

/** Starts `next start` in its own process group and waits until it answers /api/health. */
async function startServer(): Promise<ChildProcess> {
  const child = spawn("npx", ["next", "start", "-p", String(port)], { env, stdio: "ignore", detached: true });
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`next start exited with ${child.exitCode}`);
    const ok = await fetch(`${base}/api/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return child;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error("next start did not become healthy in 90 s");
}

/** SIGKILL to the whole group (npx and next-server): no finally, no shutdown hook runs. */
async function killHard(child: ChildProcess) {
  const exited = new Promise((resolve) =>
    child.exitCode === null ? child.once("exit", resolve) : resolve(0),
  );
  process.kill(-child.pid!, "SIGKILL");
  await exited;
  // next-server is a grandchild: wait until the port is free too.
  await expect
    .poll(() =>
      fetch(`${base}/api/health`).then(
        () => "up",
        () => "down",
      ),
    )
    .toBe("down");
}

test.beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), "tollgate-crash-"));
  const gatewayConfig = path.join(work, "gateway.config.json");
  // A slow demo model: a word a second, so the turn is mid-answer for a good while.
  writeFileSync(
    gatewayConfig,
    JSON.stringify({
      providers: { offline: { type: "offline", chunkDelayMs: 1000 } },
      models: {
        "offline-demo": {
          label: "Offline demo model",
          candidates: [{ provider: "offline", model: "offline-demo" }],
        },
      },
      defaultModel: "offline-demo",
    }),
  );
  env = {
    ...process.env,
    PORT: String(port),
    AUTH_SECRET: "e2e-only-secret-not-for-production-0123456789",
    NEXT_TELEMETRY_DISABLED: "1",
    LOG_LEVEL: "warn",
    GATEWAY_CONFIG: gatewayConfig,
    // The demo accounts on PostgreSQL too (seeded there only when asked for).
    SEED_DEMO: "1",
    SEED_SAMPLE_TURNS: "0",
  };
  delete env.OIDC_ISSUER;
  dropDatabase = await serverDatabase(env, { adminUrl, prefix: "tollgate_crash", work });
});

test.afterAll(async () => {
  if (server && server.exitCode === null) await killHard(server).catch(() => undefined);
  await dropDatabase().catch(() => undefined);
  if (work) rmSync(work, { recursive: true, force: true });
});

test("kill -9 mid-turn: after a restart the user's message is kept and the turn is interrupted within a minute", async ({
  page,
}) => {
  test.setTimeout(240_000);
  server = await startServer();
  await signInAs(page, "member@acme.test");

  // The drawer's request, from the signed-in page; resolves once the answer has started streaming.
  const message = "hello there, who are you? (this turn will not finish)";
  const started = await page.evaluate(async (text) => {
    const response = await fetch("/api/agent/turns", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ message: text }),
    });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let seen = "";
    while (!seen.includes("event: text")) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += decoder.decode(value, { stream: true });
    }
    const turn = /event: turn\ndata: (.*)\n/.exec(seen)?.[1];
    return { ...(JSON.parse(turn ?? "{}") as { turnId?: string; conversationId?: string }), seen };
  }, message);
  expect(started.seen).toContain("event: text");
  expect(started.turnId).toBeTruthy();
  // Not done: the answer is still streaming when the process dies.
  expect(started.seen).not.toContain("event: done");

  await killHard(server);
  server = await startServer();

  const turnStatus = async () => {
    const response = await page.request.get(`/api/agent/turns/${started.turnId}`);
    return response.ok()
      ? ((await response.json()) as { turn: { status: string } }).turn.status
      : response.status();
  };
  await expect.poll(turnStatus, { timeout: 60_000, intervals: [500] }).toBe("interrupted");

  const conversation = await page.request.get(`/api/agent/conversations/${started.conversationId}`);
  expect(conversation.status()).toBe(200);
  const { messages } = (await conversation.json()) as {
    messages: { role: string; content: string; turnId: string }[];
  };
  expect(messages.map((m) => [m.role, m.content, m.turnId])).toEqual([["user", message, started.turnId]]);
});
