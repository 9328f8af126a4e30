import { spawn } from "node:child_process";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evalRun, sysAgentTurn } from "@/db/schema";
import { createDataset } from "@/features/evals/server/datasets";
import { createApiKey } from "@/features/keys/server/keys";
import { parseGatewayConfig } from "@/lib/gateway/config";
import type { FakeProvider } from "../fakes/http";
import { startFakeOpenAI } from "../fakes/openai";
import { useSeededAppDatabase } from "../helpers/app-db";

const v1 = await import("@/app/v1/[...path]/route");

/** The app's /v1 route (with /v1/evals) behind a node:http server on 127.0.0.1. */
async function serveV1(): Promise<{ url: string; server: Server }> {
  const server = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
    const request = new Request(`http://127.0.0.1${req.url}`, {
      method: req.method,
      headers,
      body: req.method === "GET" || req.method === "HEAD" ? undefined : Buffer.concat(chunks),
    });
    const answer = await (req.method === "POST" ? v1.POST : v1.GET)(request);
    res.writeHead(answer.status, Object.fromEntries(answer.headers.entries()));
    res.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** `npm run eval -- …` as CI runs it: a process of its own. */
function runCli(args: string[], env: Record<string, string>) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(path.resolve("node_modules/.bin/tsx"), ["scripts/eval.ts", ...args], {
      env: { ...process.env, ...env, TOLLGATE_EVAL_POLL_MS: "100" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("the CI gate (npm run eval)", () => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let upstream: FakeProvider;
  let served: { url: string; server: Server };
  let secret: string;
  let keyId: string;

  beforeAll(async () => {
    app = await useSeededAppDatabase("pglite");
    upstream = await startFakeOpenAI();
    upstream.setDefault({
      kind: "text",
      text: "The capital of France is Paris.",
      usage: { input: 50, output: 10 },
    });
    await app.rebuild({
      gateway: parseGatewayConfig(
        {
          providers: {
            up: { type: "openai", baseUrl: upstream.url },
            offline: { type: "offline", chunkDelayMs: 0 },
          },
          models: {
            "team-gpt": { candidates: [{ provider: "up", model: "gpt-4o-mini" }] },
            "offline-demo": { candidates: [{ provider: "offline", model: "offline-demo" }] },
          },
          defaultModel: "team-gpt",
          retry: { maxRetries: 0 },
        },
        "test",
        {},
      ),
    });
    const acme = await app.tenantId("acme");
    const admin = await app.userId("admin@acme.test");
    await createDataset(
      app.db,
      acme,
      {
        name: "ci/smoke",
        items: [
          { input: { messages: [{ role: "user", content: "Say banana" }] }, expected: "banana" },
          { input: { messages: [{ role: "user", content: "Where is Paris?" }] }, expected: "Paris" },
        ],
      },
      { id: admin, email: "admin@acme.test" },
    );
    const created = await createApiKey(app.db, { tenantId: acme, name: "ci", createdBy: admin });
    secret = created.secret;
    keyId = created.key.id;
    app.container.evals.start();
    served = await serveV1();
  });
  afterAll(async () => {
    app.container.evals.stop();
    await app.container.evals.idle();
    await new Promise((r) => served.server.close(r));
    await upstream.close();
    await app.close();
  });

  const env = () => ({ TOLLGATE_URL: served.url, TOLLGATE_API_KEY: secret });

  it("exits 0 when every target reaches --min-pass, and prints the comparison", async () => {
    const { code, stdout, stderr } = await runCli(
      ["--dataset", "ci/smoke", "--target", "offline-demo", "--min-pass", "0.9", "--concurrency", "2"],
      env(),
    );
    expect(stderr).toContain("done: 2/2 done");
    expect(code).toBe(0);
    expect(stdout).toMatch(/^target\s+pass rate\s+mean score\s+cost\s+cost\/pass\s+p50\s+p95/);
    expect(stdout).toMatch(/offline-demo\s+100\.0% \(2\/2\)\s+1\.000\s+\$0\s+\$0/);
    // The run was started with the key: its calls are the key's, source eval.
    const turns = await app.db.select().from(sysAgentTurn).where(eq(sysAgentTurn.apiKeyId, keyId));
    expect(turns).toHaveLength(2);
    expect(turns.every((t) => t.source === "eval")).toBe(true);
    const runs = await app.db.select().from(evalRun).where(eq(evalRun.apiKeyId, keyId));
    expect(runs.map((r) => r.concurrency)).toEqual([2]);
  }, 60_000);

  it("exits 1 when a target is below --min-pass", async () => {
    const { code, stdout, stderr } = await runCli(
      ["--dataset", "ci/smoke", "--target", "offline-demo", "--target", "team-gpt", "--min-pass", "0.9"],
      env(),
    );
    expect(code).toBe(1);
    expect(stdout).toMatch(/team-gpt\s+50\.0% \(1\/2\)/);
    expect(stdout).toMatch(/team-gpt.*below 90\.0%/);
    expect(stderr).toContain("below --min-pass 0.9: team-gpt");
  }, 60_000);

  it("exits 2 on usage and HTTP errors, with the server's message", async () => {
    const usage = await runCli(["--dataset", "ci/smoke"], env());
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("at least one --target is required");
    const missing = await runCli(["--dataset", "nope", "--target", "offline-demo"], env());
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('HTTP 404: dataset "nope" not found');
    const unknownModel = await runCli(["--dataset", "ci/smoke", "--target", "gpt-99"], env());
    expect(unknownModel.code).toBe(2);
    expect(unknownModel.stderr).toContain('targets.0.model: unknown model "gpt-99"');
    const badKey = await runCli(["--dataset", "ci/smoke", "--target", "offline-demo"], {
      ...env(),
      TOLLGATE_API_KEY: "tg_not_a_key",
    });
    expect(badKey.code).toBe(2);
    expect(badKey.stderr).toContain("HTTP 401");
  }, 60_000);
});
