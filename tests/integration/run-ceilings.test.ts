// Run ceilings: a run's calls from /v1 and /mcp counted together under its key's ceiling, USD exact under
// concurrent calls, wall time from the run's first call, what is left in headers, a drawer turn stopped at the
// tenant's ceiling, and the admin API (validation, admin-change row, another tenant's key not found).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import Big from "big.js";
import { and, eq } from "drizzle-orm";
import type Redis from "ioredis";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { adminChange, appUser, runStart, sysAgentTurn } from "@/db/schema";
import { createApiKey } from "@/features/keys/server/keys";
import { saveRunCeilings } from "@/features/limits/server/run-ceilings";
import { TURN_ID_META } from "@/features/mcp/server/endpoint/handler";
import { createV1Core } from "@/features/v1/server/handler";
import { configFromEnvironment, parseGatewayConfig } from "@/lib/gateway/config";
import { Gateway } from "@/lib/gateway/gateway";
import { BatchedGovernanceRecorder } from "@/lib/governance/batched-recorder";
import { PostgresResponseCache } from "@/lib/pipeline/cache-store";
import { PostgresCounters, RedisCounters } from "@/lib/pipeline/counters";
import { Pipeline } from "@/lib/pipeline/pipeline";
import { openPipelineRedis, redisDeadlinesFromEnv } from "@/lib/pipeline/redis";
import { sweepRunStarts } from "@/lib/pipeline/run-ceiling";
import { container } from "@/server/container";
import { serveApi } from "@/server/serve";
import type { FakeProvider } from "../fakes/http";
import { startFakeOpenAI } from "../fakes/openai";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";
import { startLeanApi } from "../helpers/lean-api";
import { session } from "../helpers/session";
import { readSse } from "../helpers/sse";
import { postTurn } from "../helpers/turns";
import { serveRoutes } from "../helpers/web-server";

vi.mock("@/lib/auth/session", () => import("../helpers/session"));

const mcpRoute = await import("@/app/mcp/route");
const ceilingsRoute = await import("@/app/api/governance/run-ceilings/route");

type Handler = (req: Request, segment: { params: Promise<never> }) => Promise<Response>;
async function callRoute(handler: Handler, method: string, body?: unknown) {
  const res = await handler(
    new Request("http://app.test/api/governance/run-ceilings", {
      method,
      headers: { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
    { params: Promise.resolve({}) as Promise<never> },
  );
  return { status: res.status, body: await res.json() };
}
const put = (body: unknown) => callRoute(ceilingsRoute.PUT as Handler, "PUT", body);

describe.each(testDbKinds)("run ceilings on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let upstream: FakeProvider;
  let v1: Server;
  let mcp: Awaited<ReturnType<typeof serveRoutes>>;
  let baseURL: string;
  let recorder: BatchedGovernanceRecorder;
  let acme: string;
  let globex: string;
  let acmeAdmin: string;
  let epoch: number;

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    await app.rebuild({ gateway: configFromEnvironment({ OFFLINE_CHUNK_DELAY_MS: "0" }) });
    upstream = await startFakeOpenAI();
    // Output alone is priced, and every answer is 500 output tokens: a call sent with max_tokens 500 reserves
    // exactly what it costs ($0.001), so a USD ceiling admits exactly floor(ceiling / cost) calls.
    const gateway = new Gateway(
      parseGatewayConfig(
        {
          providers: { up: { type: "openai", baseUrl: upstream.url } },
          models: { "team-gpt": { candidates: [{ provider: "up", model: "gpt-4o-mini" }] } },
          prices: { "up/gpt-4o-mini": { input: "0", output: "2" } },
          retry: { maxRetries: 0 },
        },
        "test",
        {},
      ),
    );
    const db = async () => app.db;
    recorder = new BatchedGovernanceRecorder(db);
    // Its own counter store: the /v1 server and the /mcp route (the container's) hold allowances apart, as two
    // replicas would, over the one usage_counter table.
    const counters = new PostgresCounters(db);
    const pipeline = new Pipeline({
      db,
      gateway: () => gateway,
      counters: () => counters,
      cache: () => new PostgresResponseCache(db),
    });
    v1 = createServer(serveApi(createV1Core({ db, gateway: () => gateway, pipeline, recorder })));
    await new Promise<void>((resolve) => v1.listen(0, "127.0.0.1", resolve));
    baseURL = `http://127.0.0.1:${(v1.address() as AddressInfo).port}/v1`;
    mcp = await serveRoutes({ POST: mcpRoute.POST, GET: mcpRoute.GET, DELETE: mcpRoute.DELETE });
    acme = await app.tenantId("acme");
    globex = await app.tenantId("globex");
    acmeAdmin = await app.userId("admin@acme.test");
    const [u] = await app.db.select().from(appUser).where(eq(appUser.id, acmeAdmin));
    epoch = u!.sessionEpoch;
  });
  afterAll(async () => {
    await new Promise((resolve) => v1.close(resolve));
    await mcp.close();
    await upstream.close();
    await app.close();
  });
  beforeEach(() => {
    session.claims = { userId: acmeAdmin, tenantId: acme, epoch };
    upstream.reset();
    upstream.setDefault({
      kind: "text",
      text: "done",
      usage: { input: 1_000, output: 500 },
      model: "gpt-4o-mini",
    });
  });

  /** A new key of acme with these run ceilings (set through the admin API). */
  const keyWith = async (name: string, ceilings: Record<string, unknown>) => {
    const { key, secret } = await createApiKey(app.db, { tenantId: acme, name, createdBy: acmeAdmin });
    expect(await put({ scope: "key", subjectId: key.id, ...ceilings })).toMatchObject({ status: 200 });
    return { id: key.id, secret };
  };
  const chat = (secret: string, runId: string) =>
    fetch(`${baseURL}/chat/completions`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${secret}`,
        "content-type": "application/json",
        "x-tollgate-run-id": runId,
      },
      body: JSON.stringify({
        model: "team-gpt",
        max_tokens: 500,
        messages: [{ role: "user", content: "step" }],
      }),
    });
  const mcpCall = async (secret: string, runId: string) => {
    const client = new Client({ name: "outside-agent", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${mcp.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${secret}`, "x-tollgate-run-id": runId } },
      }),
    );
    try {
      const result = (await client.callTool({
        name: "current_time",
        arguments: { timezone: "UTC" },
      })) as CallToolResult;
      const text = (result.content[0] as { text: string }).text;
      return { turnId: result._meta?.[TURN_ID_META] as string, text };
    } finally {
      await client.close();
    }
  };
  const ledgerRow = async (id: string) => {
    await recorder.flush();
    const [row] = await app.db.select().from(sysAgentTurn).where(eq(sysAgentTurn.id, id));
    return row!;
  };

  it("counts a run's /mcp tool calls and /v1 model calls together, and refuses the call past its key's ceiling", async () => {
    const { secret } = await keyWith("mixed", { maxCalls: 3 });
    const first = await mcpCall(secret, "mixed-1");
    expect(first.text).not.toContain("error");
    expect((await chat(secret, "mixed-1")).status).toBe(200);
    expect((await chat(secret, "mixed-1")).status).toBe(200);
    const refused = await chat(secret, "mixed-1");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("x-should-retry")).toBe("false");
    const body = (await refused.json()) as { error: { code: string; type: string; message: string } };
    expect(body.error).toMatchObject({ code: "run_budget_exceeded", type: "insufficient_quota" });
    expect(body.error.message).toBe(
      `The run "mixed-1" has used 3 of its 3 calls (the API key's run ceiling).`,
    );
    const row = await ledgerRow(refused.headers.get("x-request-id")!);
    expect(row).toMatchObject({ status: "failed", runId: "mixed-1", errorClass: "run_budget_exceeded" });
    // An /mcp call of the same run is refused too, before its tool runs.
    const late = await mcpCall(secret, "mixed-1");
    expect(late.text).toContain(`The run \\"mixed-1\\" has used 3 of its 3 calls`);
    expect(await ledgerRow(late.turnId)).toMatchObject({ source: "mcp", status: "failed" });
    // Another run of the key, and a call without a run id, are not held by this run's count.
    expect((await chat(secret, "mixed-2")).status).toBe(200);
    const unmarked = await fetch(`${baseURL}/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "team-gpt", messages: [{ role: "user", content: "x" }] }),
    });
    expect(unmarked.status).toBe(200);
    expect(unmarked.headers.get("x-tollgate-run-remaining-calls")).toBeNull();
    // Two calls of mixed-1, one of mixed-2, the unmarked one: the refused call never reached the provider.
    expect(upstream.requests).toHaveLength(4);
  });

  it("holds a USD ceiling exactly under 24 concurrent calls of one run", async () => {
    const { secret } = await keyWith("spender", { maxUsd: "0.0105" });
    const answers = await Promise.all(Array.from({ length: 24 }, () => chat(secret, "usd-run")));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(14);
    const refusal = (await answers.find((r) => r.status === 429)!.json()) as { error: { code: string } };
    expect(refusal.error.code).toBe("run_budget_exceeded");
    await recorder.flush();
    const rows = await app.db.select().from(sysAgentTurn).where(eq(sysAgentTurn.runId, "usd-run"));
    const spent = rows.reduce((sum, r) => sum.plus(r.cost ?? "0"), new Big(0));
    expect(spent.toFixed()).toBe("0.01");
    expect(upstream.requests).toHaveLength(10);
  });

  it("refuses a call past the run's wall time, measured from its first call's run_start row", async () => {
    const { secret } = await keyWith("timed", { maxSeconds: 1 });
    const first = await chat(secret, "timed-run");
    expect(first.status).toBe(200);
    expect(first.headers.get("x-tollgate-run-remaining-seconds")).toMatch(/^[01]$/);
    const [start] = await app.db
      .select()
      .from(runStart)
      .where(and(eq(runStart.tenantId, acme), eq(runStart.runId, "timed-run")));
    expect(start).toBeDefined();
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const late = await chat(secret, "timed-run");
    expect(late.status).toBe(429);
    const body = (await late.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("run_budget_exceeded");
    expect(body.error.message).toMatch(
      /^The run "timed-run" has run 1 s of its 1 s \(the API key's run ceiling\)\.$/,
    );
    // A new run of the key starts its own clock.
    expect((await chat(secret, "timed-run-2")).status).toBe(200);
    // The sweep keeps a week's starts, and deletes older ones.
    expect(await sweepRunStarts(app.db)).toBe(0);
    expect(await sweepRunStarts(app.db, new Date(Date.now() + 9 * 86_400_000))).toBeGreaterThanOrEqual(2);
  });

  it("tells an API caller what its run has left, under the tightest of the tenant's and the key's ceilings", async () => {
    const { secret } = await keyWith("headers", { maxCalls: 5, maxUsd: "1" });
    expect(await put({ scope: "tenant", maxCalls: 3, maxTokens: 100_000 })).toMatchObject({ status: 200 });
    try {
      const res = await chat(secret, "headers-run");
      expect(res.status).toBe(200);
      expect(res.headers.get("x-tollgate-run-remaining-calls")).toBe("2");
      // After this call's reservation: $1 less its worst case of $0.001.
      expect(res.headers.get("x-tollgate-run-remaining-usd")).toBe("0.999");
      expect(Number(res.headers.get("x-tollgate-run-remaining-tokens"))).toBeLessThan(100_000 - 500);
      expect(res.headers.get("x-tollgate-run-remaining-seconds")).toBeNull();
      await chat(secret, "headers-run");
      await chat(secret, "headers-run");
      const refused = await chat(secret, "headers-run");
      expect(refused.status).toBe(429);
      expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(
        `The run "headers-run" has used 3 of its 3 calls (the tenant's run ceiling).`,
      );
      // A call that sets no max_tokens under a USD ceiling is sent with the tenant's output ceiling, and told so.
      const capped = await fetch(`${baseURL}/chat/completions`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${secret}`,
          "content-type": "application/json",
          "x-tollgate-run-id": "capped",
        },
        body: JSON.stringify({ model: "team-gpt", messages: [{ role: "user", content: "step" }] }),
      });
      expect(capped.status).toBe(200);
      expect(capped.headers.get("x-tollgate-warning")).toContain("max_tokens was not set");
      expect(
        upstream.requests.at(-1)!.body.max_tokens ?? upstream.requests.at(-1)!.body.max_completion_tokens,
      ).toBe(4096);
    } finally {
      expect(await put({ scope: "tenant" })).toMatchObject({ status: 200, body: { ceilings: null } });
    }
  });

  it("stops a drawer turn at the tenant's run ceiling with the reason in the drawer and on its ledger row", async () => {
    expect(await put({ scope: "tenant", maxTokens: 10 })).toMatchObject({ status: 200 });
    const refusals = async () => {
      const text = await container().telemetry.metrics.registry.getSingleMetricAsString(
        "tollgate_budget_refusals_total",
      );
      const line = text
        .split("\n")
        .find(
          (l) =>
            l.includes(`tenant="${acme}"`) &&
            l.includes('source="drawer"') &&
            l.includes('reason="run_ceiling"'),
        );
      return line ? Number(line.slice(line.lastIndexOf(" ") + 1)) : 0;
    };
    const before = await refusals();
    try {
      const frames = await readSse(await postTurn({ message: "hello" }));
      const turnId = frames.find((f) => f.event === "turn")!.data.turnId as string;
      const error = frames.find((f) => f.event === "error");
      expect(error?.data).toMatchObject({ class: "run_budget_exceeded" });
      expect(error?.data.message).toMatch(
        new RegExp(
          `^The run "${turnId}" has used 0 of its 10 tokens, and this request may use up to \\d+ \\(the tenant's run ceiling\\)\\.$`,
        ),
      );
      const [row] = await app.db.select().from(sysAgentTurn).where(eq(sysAgentTurn.id, turnId));
      expect(row).toMatchObject({
        source: "drawer",
        status: "failed",
        runId: turnId,
        errorClass: "run_budget_exceeded",
      });
      // Counted with the budget refusals, under its own reason.
      expect(await refusals()).toBe(before + 1);
    } finally {
      await put({ scope: "tenant" });
    }
  });

  it("stops a drawer turn between rounds at its run ceiling, counting the calls of the sub-agent it delegated to", async () => {
    expect(await put({ scope: "tenant", maxCalls: 2 })).toMatchObject({ status: 200 });
    try {
      // Round 1 delegates (call 1); the sub-agent's first round (call 2) is in the same run, so its next one and
      // the turn's own round 2 are past the ceiling.
      const frames = await readSse(await postTurn({ message: "delegate: what time is it now?" }));
      const turnId = frames.find((f) => f.event === "turn")!.data.turnId as string;
      expect(frames.some((f) => f.event === "tool_call" || f.event === "tool_start")).toBe(true);
      const error = frames.find((f) => f.event === "error");
      expect(error?.data).toMatchObject({ class: "run_budget_exceeded" });
      expect(error?.data.message).toBe(
        `The run "${turnId}" has used 2 of its 2 calls (the tenant's run ceiling).`,
      );
      const [row] = await app.db.select().from(sysAgentTurn).where(eq(sysAgentTurn.id, turnId));
      expect(row).toMatchObject({ status: "failed", runId: turnId, errorClass: "run_budget_exceeded" });
    } finally {
      await put({ scope: "tenant" });
    }
  });

  it("validates ceilings with a 422 naming the field, records each change, and does not reach another tenant's key", async () => {
    const bad = [
      [{ scope: "tenant", maxCalls: 0 }, "maxCalls"],
      [{ scope: "tenant", maxUsd: "lots" }, "maxUsd"],
      [{ scope: "tenant", maxUsd: "0" }, "maxUsd"],
      [{ scope: "tenant", maxSeconds: 1.5 }, "maxSeconds"],
      [{ scope: "key", maxCalls: 2 }, "subjectId"],
      [{ scope: "team", maxCalls: 2 }, "scope"],
    ] as const;
    for (const [body, field] of bad) {
      const res = await put(body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(Object.keys(res.body.error.fields ?? {})).toContain(field);
    }
    const { key: theirs } = await createApiKey(app.db, {
      tenantId: globex,
      name: "theirs",
      createdBy: await app.userId("admin@globex.test"),
    });
    expect(await put({ scope: "key", subjectId: theirs.id, maxCalls: 2 })).toMatchObject({ status: 404 });

    const { key } = await createApiKey(app.db, { tenantId: acme, name: "audited", createdBy: acmeAdmin });
    expect(await put({ scope: "key", subjectId: key.id, maxUsd: "2.50", maxSeconds: 600 })).toEqual({
      status: 200,
      body: { ceilings: { maxUsd: "2.5", maxCalls: null, maxTokens: null, maxSeconds: 600 } },
    });
    const listed = await callRoute(ceilingsRoute.GET as Handler, "GET");
    expect(listed.body.keys.find((k: { id: string }) => k.id === key.id)).toMatchObject({
      ceilings: { maxUsd: "2.5", maxSeconds: 600 },
    });
    expect(await put({ scope: "key", subjectId: key.id })).toEqual({ status: 200, body: { ceilings: null } });
    const changes = await app.db
      .select()
      .from(adminChange)
      .where(and(eq(adminChange.objectType, "run_ceiling"), eq(adminChange.objectId, `key:${key.id}`)))
      .orderBy(adminChange.createdAt);
    expect(changes.map((c) => [c.action, c.tenantId, c.actorId])).toEqual([
      ["run_ceiling.set", acme, acmeAdmin],
      ["run_ceiling.removed", acme, acmeAdmin],
    ]);
    expect(changes[0]!.after).toMatchObject({ scope: "key", maxUsd: "2.5", maxSeconds: 600 });
  });
});

/** Redis for the counters, when the run has one (CI sets TEST_REDIS_URL). */
const redisUrl = process.env.TEST_REDIS_URL ?? "";

describe.each(redisUrl ? ["pglite"] : [])("run ceilings with counters in redis (%s)", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let upstream: FakeProvider;
  let redis: Redis;
  let api: Awaited<ReturnType<typeof startLeanApi>>;
  let other: Awaited<ReturnType<typeof startLeanApi>>;
  let acme: string;
  let admin: string;

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind as "pglite");
    upstream = await startFakeOpenAI();
    upstream.setDefault({
      kind: "text",
      text: "done",
      usage: { input: 1_000, output: 500 },
      model: "gpt-4o-mini",
    });
    const gateway = new Gateway(
      parseGatewayConfig(
        {
          providers: { up: { type: "openai", baseUrl: upstream.url } },
          models: { "team-gpt": { candidates: [{ provider: "up", model: "gpt-4o-mini" }] } },
          prices: { "up/gpt-4o-mini": { input: "0", output: "2" } },
          retry: { maxRetries: 0 },
        },
        "test",
        {},
      ),
    );
    // The product's own Redis client (deadlines, errors logged): a bare one turned a dropped socket (EPIPE, seen
    // once in CI under load) into an unhandled error event that failed the suite.
    redis = openPipelineRedis(redisUrl, redisDeadlinesFromEnv());
    const prefix = `tollgate-runceil-test-${process.pid}-${Date.now()}:`;
    // Two servers, each with its own store client over the one Redis: two replicas.
    api = await startLeanApi(app.db, gateway, new RedisCounters(redis, prefix));
    other = await startLeanApi(app.db, gateway, new RedisCounters(redis, prefix));
    acme = await app.tenantId("acme");
    admin = await app.userId("admin@acme.test");
  });
  afterAll(async () => {
    await api.close();
    await other.close();
    await upstream.close();
    await app.close();
    await redis.quit();
  });

  it("holds a USD ceiling exactly under 32 concurrent calls of one run spread over two replicas", async () => {
    const { key, secret } = await createApiKey(app.db, {
      tenantId: acme,
      name: "redis-run",
      createdBy: admin,
    });
    await saveRunCeilings(
      app.db,
      acme,
      {
        scope: "key",
        subjectId: key.id,
        maxUsd: "0.0125",
        maxCalls: null,
        maxTokens: null,
        maxSeconds: null,
      },
      { id: admin, email: "admin@acme.test" },
    );
    const answers = await Promise.all(
      Array.from({ length: 32 }, (_, i) =>
        fetch(`${(i % 2 ? api : other).root}/v1/chat/completions`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${secret}`,
            "content-type": "application/json",
            "x-tollgate-run-id": "r",
          },
          body: JSON.stringify({
            model: "team-gpt",
            max_tokens: 500,
            messages: [{ role: "user", content: "go" }],
          }),
        }),
      ),
    );
    expect(answers.filter((r) => r.status === 200)).toHaveLength(12);
    expect(answers.filter((r) => r.status === 429)).toHaveLength(20);
    expect(upstream.requests).toHaveLength(12);
  });
});
