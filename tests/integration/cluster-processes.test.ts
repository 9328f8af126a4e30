// Two lean gateways (npm run gateway) as the operator runs them, two processes over one PostgreSQL database with no
// sticky anything between them: a deployment that fails on one is skipped by the other, over
// PostgreSQL LISTEN/NOTIFY and over Redis pub/sub. (The embedded database is one process: nothing to share.)
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseOptionsFromEnv, openDatabase } from "@/db/client";
import { prepareDatabase } from "@/db/migrate";
import { appUser, tenant } from "@/db/schema";
import { seedDemoData } from "@/features/demo/server";
import { createApiKey } from "@/features/keys/server/keys";
import type { FakeProvider } from "../fakes/http";
import { startFakeOpenAI } from "../fakes/openai";
import { postgresAdminUrl } from "../helpers/db";
import { serverDatabase } from "../helpers/server-database";

const redisUrl = process.env.TEST_REDIS_URL ?? "";
const setups = postgresAdminUrl
  ? [
      { name: "PostgreSQL LISTEN/NOTIFY", via: "postgres" },
      ...(redisUrl ? [{ name: "Redis pub/sub", via: "redis" }] : []),
    ]
  : [];
const scripts = (JSON.parse(readFileSync("package.json", "utf8")) as { scripts: Record<string, string> })
  .scripts;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

// Without PostgreSQL or Redis (the Node 22/24 runs) the suite is listed as skipped: it needs a shared bus.
describe
  .skipIf(!setups.length)
  .each(setups.length ? setups : [{ name: "needs PostgreSQL (TEST_DATABASE_URL)", via: "postgres" }])(
  "two lean gateway processes share cooldowns: $name",
  ({ via }) => {
    let work: string;
    let env: NodeJS.ProcessEnv;
    let flaky: FakeProvider;
    let backup: FakeProvider;
    let dropDatabase = async () => {};
    let secret: string;
    const children: ChildProcess[] = [];

    beforeAll(async () => {
      work = mkdtempSync(path.join(tmpdir(), "tollgate-cluster-"));
      flaky = await startFakeOpenAI();
      backup = await startFakeOpenAI();
      flaky.setDefault({ kind: "text", text: "from flaky" });
      backup.setDefault({ kind: "text", text: "from backup" });
      const gatewayConfig = path.join(work, "gateway.config.json");
      writeFileSync(
        gatewayConfig,
        JSON.stringify({
          providers: {
            flaky: { type: "openai", baseUrl: flaky.url, apiKeyEnv: "CLUSTER_FAKE_KEY" },
            backup: { type: "openai", baseUrl: backup.url, apiKeyEnv: "CLUSTER_FAKE_KEY" },
          },
          models: {
            "gpt-fake": {
              candidates: [
                { provider: "flaky", model: "gpt-4o-mini" },
                { provider: "backup", model: "gpt-4o-mini" },
              ],
            },
          },
          defaultModel: "gpt-fake",
          retry: { maxRetries: 0 },
          // One failure cools the deployment down for a minute: a call on the other process can only skip it if
          // it was told.
          cooldown: { consecutiveFailures: 1, cooldownMs: 60_000 },
        }),
      );
      env = {
        ...process.env,
        LOG_LEVEL: "warn",
        GATEWAY_CONFIG: gatewayConfig,
        CLUSTER_FAKE_KEY: "sk-fake",
        SEED_DEMO: "1",
        SEED_SAMPLE_TURNS: "0",
      };
      delete env.REDIS_URL;
      if (via === "redis") {
        env.REDIS_URL = redisUrl;
        env.REDIS_PREFIX = `tollgate-cluster-test-${process.pid}-${Date.now()}:`;
      }
      dropDatabase = await serverDatabase(env, {
        adminUrl: postgresAdminUrl,
        prefix: `tollgate_cluster_${via}`,
        work,
      });
      const handle = await openDatabase(databaseOptionsFromEnv(env));
      try {
        await prepareDatabase(handle, { afterMigrations: (h) => seedDemoData(h, { sampleTurns: 0 }) });
        const [acme] = await handle.db.select().from(tenant).where(eq(tenant.slug, "acme"));
        const [admin] = await handle.db.select().from(appUser).where(eq(appUser.email, "admin@acme.test"));
        secret = (
          await createApiKey(handle.db, { tenantId: acme!.id, name: "cluster", createdBy: admin!.id })
        ).secret;
      } finally {
        await handle.close();
      }
    }, 120_000);

    afterAll(async () => {
      for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
      await flaky?.close();
      await backup?.close();
      await dropDatabase();
      if (work) rmSync(work, { recursive: true, force: true });
    });

    async function startGateway(): Promise<string> {
      const port = await freePort();
      const child = spawn(process.execPath, scripts.gateway!.split(/\s+/).slice(1), {
        env: { ...env, GATEWAY_PORT: String(port) },
        stdio: ["ignore", "inherit", "inherit"],
      });
      children.push(child);
      const base = `http://127.0.0.1:${port}`;
      const end = Date.now() + 90_000;
      for (;;) {
        const ready = await fetch(`${base}/health/ready`).catch(() => null);
        if (ready?.ok) return base;
        if (Date.now() > end || child.exitCode !== null)
          throw new Error("the lean gateway did not get ready");
        await sleep(100);
      }
    }

    const chat = async (base: string) => {
      const res = await fetch(`${base}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "gpt-fake", messages: [{ role: "user", content: "hello" }] }),
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { choices: { message: { content: string } }[] };
      return body.choices[0]!.message.content;
    };

    it("a deployment that fails on one process is skipped by the other, which never saw it fail", async () => {
      const [a, b] = await Promise.all([startGateway(), startGateway()]);
      // Both processes call the flaky deployment while it works.
      expect(await chat(a)).toBe("from flaky");
      expect(await chat(b)).toBe("from flaky");
      // It fails once, on A: A cools it down and falls back.
      flaky.enqueue({ kind: "error", status: 500, message: "upstream broke" });
      expect(await chat(a)).toBe("from backup");
      const told = performance.now();
      // B never saw it fail; until it hears, its calls still go to flaky (and succeed, which trips nothing).
      let answer = await chat(b);
      // The bus's own latency is held to a second in cluster-bus.test.ts; here each poll is a whole HTTP call through a
      // loaded machine, so the deadline only bounds the wait.
      while (answer !== "from backup" && performance.now() - told < 10_000) {
        await sleep(20);
        answer = await chat(b);
      }
      expect(answer).toBe("from backup");
      // Skipped from then on: flaky hears nothing more from B.
      const seen = flaky.requests.length;
      expect(await chat(b)).toBe("from backup");
      expect(flaky.requests.length).toBe(seen);
    }, 180_000);
  },
);
