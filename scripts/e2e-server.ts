// Serves the production build for Playwright on its own database — a fresh Postgres database when the run has
// one (TEST_DATABASE_URL or DATABASE_URL), else a throwaway PGlite directory — with a gateway over the offline
// demo model, a fake OpenAI server the tests script through its /__control routes, and a real OpenID Connect
// provider (oidc-provider, any login accepted) for single sign-on. All removed on exit.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { databaseOptionsFromEnv, openDatabase } from "../db/client";
import { prepareDatabase } from "../db/migrate";
import { seedDemoData } from "../features/demo/server";
import { startFakeAnthropic } from "../tests/fakes/anthropic";
import { type FaultProxy, startFaultProxy } from "../tests/fakes/fault-proxy";
import { startFakeOidc } from "../tests/fakes/oidc";
import { startFakeOpenAI } from "../tests/fakes/openai";
import { serverDatabase } from "../tests/helpers/server-database";

const port = process.env.E2E_PORT ?? "3100";
const fakePort = Number(process.env.E2E_FAKE_PORT ?? 3191);
const oidcPort = Number(process.env.E2E_OIDC_PORT ?? 3192);
const anthropicPort = Number(process.env.E2E_ANTHROPIC_PORT ?? 3193);
const adminUrl = process.env.TEST_DATABASE_URL || process.env.DATABASE_URL || "";
const work = mkdtempSync(path.join(tmpdir(), "tollgate-e2e-"));

const fake = await startFakeOpenAI(fakePort);
const fakeAnthropic = await startFakeAnthropic(anthropicPort);
// Next.js hands route handlers http://localhost:<port> whatever the Host (127.0.0.1 included), so without AUTH_URL
// the redirect URI is on localhost, and the single sign-on tests browse on localhost.
const oidc = await startFakeOidc({
  port: oidcPort,
  redirectUris: [`http://localhost:${port}/api/auth/callback/oidc`],
});
// A provider that refuses connections (a port bound, then closed: nothing listens there), first in an alias whose
// second candidate is the fake: the built app must fall back on a refused connection.
const deadPort = await new Promise<number>((resolve) => {
  const probe = createServer().listen(0, "127.0.0.1", () => {
    const { port: free } = probe.address() as AddressInfo;
    probe.close(() => resolve(free));
  });
});
const gatewayConfig = path.join(work, "gateway.config.json");
writeFileSync(
  gatewayConfig,
  JSON.stringify({
    providers: {
      offline: { type: "offline", chunkDelayMs: 60 },
      fake: { type: "openai", baseUrl: fake.url, apiKeyEnv: "E2E_FAKE_OPENAI_KEY" },
      "fake-anthropic": { type: "anthropic", baseUrl: fakeAnthropic.url, apiKeyEnv: "E2E_FAKE_OPENAI_KEY" },
      dead: { type: "openai", baseUrl: `http://127.0.0.1:${deadPort}/v1`, apiKeyEnv: "E2E_FAKE_OPENAI_KEY" },
    },
    models: {
      "offline-demo": {
        label: "Offline demo model",
        candidates: [{ provider: "offline", model: "offline-demo" }],
      },
      "gpt-fake": {
        label: "Fake GPT (test upstream)",
        candidates: [{ provider: "fake", model: "gpt-4o-mini" }],
      },
      "claude-fake": {
        label: "Fake Claude (test upstream)",
        candidates: [{ provider: "fake-anthropic", model: "claude-sonnet-4-5" }],
      },
      // A model no price catalog knows (the fake answers as it when told to): unpriced usage and assumed prices.
      "house-model": {
        label: "In-house model (no list price)",
        candidates: [{ provider: "fake", model: "house-llm-1" }],
      },
      "gpt-fallback": {
        label: "Dead provider, then the fake",
        candidates: [
          { provider: "dead", model: "gpt-4o-mini" },
          { provider: "fake", model: "gpt-4o-mini" },
        ],
      },
      // Routing strategies on the Routing page and the ledger (the fake answers for both models).
      "gpt-weighted": {
        label: "Weighted 70/30 (test upstream)",
        strategy: "weighted",
        candidates: [
          { provider: "fake", model: "gpt-4o-mini", weight: 70 },
          { provider: "fake", model: "gpt-4o", weight: 30 },
        ],
      },
    },
    defaultModel: "offline-demo",
    retry: { maxRetries: 0 },
    cooldown: { consecutiveFailures: 100, minCallsForRate: 100 },
  }),
);

const env: NodeJS.ProcessEnv = {
  ...process.env,
  PORT: port,
  AUTH_SECRET: "e2e-only-secret-not-for-production-0123456789",
  NEXT_TELEMETRY_DISABLED: "1",
  LOG_LEVEL: process.env.LOG_LEVEL ?? "warn",
  GATEWAY_CONFIG: gatewayConfig,
  E2E_FAKE_OPENAI_KEY: "sk-e2e-fake",
  OIDC_ISSUER: oidc.issuer,
  OIDC_CLIENT_ID: oidc.clientId,
  OIDC_CLIENT_SECRET: oidc.clientSecret,
  OIDC_NAME: "Test SSO",
  // The app registers the demo's orders tools on PostgreSQL too (the demo is seeded above either way).
  SEED_DEMO: "1",
  // The MCP specs register a test MCP server they start on 127.0.0.1: the operator allow-list opens loopback
  // (web_fetch's address guard, which MCP server URLs share), and header values are sealed under a test key.
  WEB_FETCH_ALLOW: "127.0.0.1/32",
  MCP_SECRET_KEY: "e2e0000000000000000000000000000000000000000000000000000000000000",
};

let dropDatabase = async () => {};
dropDatabase = await serverDatabase(env, { adminUrl, prefix: "tollgate_e2e", work });

// On PostgreSQL the app reaches its database through a fault proxy, which the outage spec switches through
// POST /__control/fault {"mode": "refuse" | "blackhole" | "pass"} on E2E_FAULT_PORT: a database outage in front
// of the drawer without stopping the shared server. GET says whether there is one (PGlite has no connection).
let faultProxy: FaultProxy | null = null;
if (env.DATABASE_URL) {
  const url = new URL(env.DATABASE_URL);
  faultProxy = await startFaultProxy({ host: url.hostname, port: Number(url.port || 5432) });
  url.hostname = "127.0.0.1";
  url.port = String(faultProxy.port);
  env.DATABASE_URL = url.toString();
}
const faultControl = createServer((req, res) => {
  const reply = (status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };
  if (req.url !== "/__control/fault") return reply(404, { error: "unknown control path" });
  if (req.method === "GET") return reply(200, { available: !!faultProxy, mode: faultProxy?.mode ?? null });
  let body = "";
  req.setEncoding("utf8");
  req.on("data", (chunk: string) => {
    body += chunk;
    if (body.length > 1_000) req.destroy();
  });
  req.on("end", () => {
    let mode: unknown;
    try {
      mode = (JSON.parse(body) as { mode?: unknown }).mode;
    } catch {
      return reply(400, { error: 'the body must be JSON: {"mode": "refuse"}' });
    }
    if (!faultProxy) return reply(409, { error: "no fault proxy: the e2e server runs on PGlite" });
    if (mode !== "pass" && mode !== "refuse" && mode !== "blackhole")
      return reply(400, { error: "mode must be pass, refuse or blackhole" });
    faultProxy.set(mode).then(
      () => reply(200, { available: true, mode }),
      (error: Error) => reply(500, { error: error.message }),
    );
  });
});
await new Promise<void>((resolve) =>
  faultControl.listen(Number(process.env.E2E_FAULT_PORT ?? 3194), "127.0.0.1", resolve),
);

// A known sample history (deterministic), so the admin pages have rows, segments and charts to show.
const handle = await openDatabase(databaseOptionsFromEnv(env));
await prepareDatabase(handle, {
  afterMigrations: (h) => seedDemoData(h, { sampleTurns: Number(process.env.E2E_SAMPLE_TURNS ?? 400) }),
});
await handle.close();

// Its own process group, so stopping it stops next-server too, not only the npx in front of it.
const server = spawn("npx", ["next", "start", "-p", port], { env, stdio: "inherit", detached: true });
let stopping = false;
async function stop(code: number) {
  if (stopping) return;
  stopping = true;
  try {
    if (server.pid) process.kill(-server.pid, "SIGTERM");
  } catch {
    server.kill("SIGTERM");
  }
  await new Promise((resolve) => (server.exitCode === null ? server.once("exit", resolve) : resolve(null)));
  await dropDatabase().catch((error: Error) => console.error(`e2e cleanup failed: ${error.message}`));
  await fake.close();
  await fakeAnthropic.close();
  await oidc.close();
  faultControl.close();
  await faultProxy?.close();
  rmSync(work, { recursive: true, force: true });
  process.exit(code);
}
server.on("exit", (code) => stop(code ?? 1));
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => stop(0));
