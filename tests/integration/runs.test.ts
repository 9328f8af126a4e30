// Agent runs: /v1 and /mcp calls carrying x-tollgate-run-id (or metadata.run_id) and drawer turns land on the ledger
// with their run id; the Runs page aggregates a run's calls, the run replay returns them in order, the copilot's
// governance_runs answers the same numbers, and another tenant's runs stay out of sight.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { eq } from "drizzle-orm";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { sysAgentTurn } from "@/db/schema";
import type { PageQuery, ProviderContext, RunSummary } from "@/features/admin-tables/contracts";
import { agentRunsProvider } from "@/features/admin-tables/server/providers/agent-runs";
import { createApiKey } from "@/features/keys/server/keys";
import { TURN_ID_META } from "@/features/mcp/server/endpoint/handler";
import { runReplay } from "@/features/replay/server";
import { createV1Core } from "@/features/v1/server/handler";
import { ResultWithCards } from "@/lib/agent/cards";
import type { ToolContext } from "@/lib/agent/tool";
import { AppError } from "@/lib/core/errors/app-error";
import { normalizeDecimal } from "@/lib/core/format/money";
import { configFromEnvironment, parseGatewayConfig } from "@/lib/gateway/config";
import { Gateway } from "@/lib/gateway/gateway";
import { addCost } from "@/lib/gateway/pricing";
import { BatchedGovernanceRecorder } from "@/lib/governance/batched-recorder";
import { PostgresResponseCache } from "@/lib/pipeline/cache-store";
import { PostgresCounters } from "@/lib/pipeline/counters";
import { Pipeline } from "@/lib/pipeline/pipeline";
import { serveApi } from "@/server/serve";
import type { FakeProvider } from "../fakes/http";
import { startFakeOpenAI } from "../fakes/openai";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";
import { renderRunReplay } from "../helpers/render-run-replay";
import { session } from "../helpers/session";
import { readSse } from "../helpers/sse";
import { postTurn } from "../helpers/turns";
import { serveRoutes } from "../helpers/web-server";

vi.mock("@/lib/auth/session", () => import("../helpers/session"));

const mcpRoute = await import("@/app/mcp/route");

const runsQuery = (filters: Record<string, string> = {}, limit = 50): PageQuery => ({
  filters,
  segment: null,
  sort: { field: "lastAt", direction: "desc" },
  cursor: null,
  limit,
});

describe.each(testDbKinds)("agent runs on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let upstream: FakeProvider;
  let v1: Server;
  let mcp: Awaited<ReturnType<typeof serveRoutes>>;
  let baseURL: string;
  let recorder: BatchedGovernanceRecorder;
  let acme: string;
  let globex: string;
  let acmeAdmin: string;
  let globexAdmin: string;
  let acmeSecret: string;
  let globexSecret: string;
  const acmeCtx = (): ProviderContext => ({ tenantId: acme, superAdmin: false });
  const provider = () => agentRunsProvider(async () => app.db);
  /** The turn ids of run-A's calls, in the order they were made. */
  const runA: string[] = [];

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    await app.rebuild({ gateway: configFromEnvironment({ OFFLINE_CHUNK_DELAY_MS: "0" }) });
    upstream = await startFakeOpenAI();
    const gateway = new Gateway(
      parseGatewayConfig(
        {
          providers: { up: { type: "openai", baseUrl: upstream.url } },
          models: { "team-gpt": { candidates: [{ provider: "up", model: "gpt-4o-mini" }] } },
          retry: { maxRetries: 0 },
        },
        "test",
        {},
      ),
    );
    const db = async () => app.db;
    recorder = new BatchedGovernanceRecorder(db);
    const counters = new PostgresCounters(db);
    const cache = new PostgresResponseCache(db);
    const pipeline = new Pipeline({
      db,
      gateway: () => gateway,
      counters: () => counters,
      cache: () => cache,
    });
    v1 = createServer(serveApi(createV1Core({ db, gateway: () => gateway, pipeline, recorder })));
    await new Promise<void>((resolve) => v1.listen(0, "127.0.0.1", resolve));
    baseURL = `http://127.0.0.1:${(v1.address() as AddressInfo).port}/v1`;
    mcp = await serveRoutes({ POST: mcpRoute.POST, GET: mcpRoute.GET, DELETE: mcpRoute.DELETE });
    acme = await app.tenantId("acme");
    globex = await app.tenantId("globex");
    acmeAdmin = await app.userId("admin@acme.test");
    globexAdmin = await app.userId("admin@globex.test");
    acmeSecret = (await createApiKey(app.db, { tenantId: acme, name: "runner", createdBy: acmeAdmin }))
      .secret;
    globexSecret = (await createApiKey(app.db, { tenantId: globex, name: "runner", createdBy: globexAdmin }))
      .secret;
  });
  afterAll(async () => {
    await new Promise((resolve) => v1.close(resolve));
    await mcp.close();
    await upstream.close();
    await app.close();
  });
  beforeEach(() => {
    upstream.reset();
    upstream.setDefault({
      kind: "text",
      text: "done",
      usage: { input: 1_000, output: 500 },
      model: "gpt-4o-mini",
    });
  });

  const client = (secret: string) => new OpenAI({ apiKey: secret, baseURL, maxRetries: 0 });
  const chat = async (
    secret: string,
    options: { header?: string; metadata?: Record<string, string> } = {},
  ) => {
    const { response } = await client(secret)
      .chat.completions.create(
        {
          model: "team-gpt",
          messages: [{ role: "user", content: "step" }],
          ...(options.metadata ? { metadata: options.metadata } : {}),
        },
        options.header === undefined ? {} : { headers: { "x-tollgate-run-id": options.header } },
      )
      .withResponse();
    return response.headers.get("x-request-id")!;
  };
  const mcpCall = async (secret: string, runId: string) => {
    const mcpClient = new Client({ name: "outside-agent", version: "1.0.0" });
    await mcpClient.connect(
      new StreamableHTTPClientTransport(new URL(`${mcp.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${secret}`, "x-tollgate-run-id": runId } },
      }),
    );
    try {
      const result = (await mcpClient.callTool({
        name: "current_time",
        arguments: { timezone: "UTC" },
      })) as CallToolResult;
      return result._meta?.[TURN_ID_META] as string;
    } finally {
      await mcpClient.close();
    }
  };
  const ledgerRow = async (id: string) => {
    await recorder.flush();
    const [row] = await app.db.select().from(sysAgentTurn).where(eq(sysAgentTurn.id, id));
    return row!;
  };
  const runRow = async (runId: string, ctx = acmeCtx()) =>
    (await provider().rows(ctx, runsQuery({ runId }))).rows[0] as RunSummary | undefined;

  it("puts /v1 calls (header or metadata.run_id) and an /mcp call with the header on the ledger with their run id", async () => {
    runA.push(await chat(acmeSecret, { header: "run-A" }));
    runA.push(await chat(acmeSecret, { metadata: { run_id: "run-A", team: "billing" } }));
    runA.push(await mcpCall(acmeSecret, "run-A"));
    // A call the provider fails is still one of the run's calls.
    upstream.enqueue({ kind: "error", status: 500, message: "upstream broke" });
    await expect(chat(acmeSecret, { header: "run-A" })).rejects.toMatchObject({ status: 502 });
    await recorder.flush();
    const failed = await app.db.select().from(sysAgentTurn).where(eq(sysAgentTurn.status, "failed"));
    expect(failed.map((r) => r.runId)).toEqual(["run-A"]);
    runA.push(failed[0]!.id);
    const unmarked = await chat(acmeSecret);

    const rows = await Promise.all(runA.map(ledgerRow));
    expect(rows.map((r) => [r.source, r.status, r.runId])).toEqual([
      ["api", "success", "run-A"],
      ["api", "success", "run-A"],
      ["mcp", "success", "run-A"],
      ["api", "failed", "run-A"],
    ]);
    // metadata.run_id reaches the provider as the caller sent it; the header is Tollgate's and goes no further.
    expect(upstream.requests.map((r) => r.body.metadata ?? null)).toEqual([
      null,
      { run_id: "run-A", team: "billing" },
      null,
      null,
    ]);
    expect(upstream.requests[0]!.headers["x-tollgate-run-id"]).toBeUndefined();
    expect((await ledgerRow(unmarked)).runId).toBeNull();
  });

  it("refuses a run id that is not 1 to 128 printable ASCII characters with a 400 naming where it came from", async () => {
    for (const bad of ["", "x".repeat(129), "tab\there", "caf\u00e9"]) {
      const error = await chat(acmeSecret, { header: bad }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OpenAI.APIError);
      expect(error).toMatchObject({ status: 400, param: "x-tollgate-run-id" });
      expect((error as Error).message).toContain("x-tollgate-run-id: must be 1 to 128 printable ASCII");
    }
    const metadata = await chat(acmeSecret, { metadata: { run_id: "é" } }).catch((e: unknown) => e);
    expect(metadata).toMatchObject({ status: 400, param: "metadata.run_id" });
    // Anthropic's clients hear it in Anthropic's dialect.
    const anthropic = await fetch(`${baseURL}/messages`, {
      method: "POST",
      headers: {
        "x-api-key": acmeSecret,
        "content-type": "application/json",
        "anthropic-version": "2023-06-01",
        "x-tollgate-run-id": "x".repeat(200),
      },
      body: JSON.stringify({
        model: "team-gpt",
        max_tokens: 10,
        messages: [{ role: "user", content: "hi" }],
      }),
    });
    expect(anthropic.status).toBe(400);
    const body = (await anthropic.json()) as { type: string; error: { type: string; message: string } };
    expect(body.type).toBe("error");
    expect(body.error.type).toBe("invalid_request_error");
    expect(body.error.message).toContain("x-tollgate-run-id");
    // /mcp refuses it before any tool runs, as a JSON-RPC error.
    const res = await fetch(`${mcp.url}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${acmeSecret}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "x-tollgate-run-id": "é-not-ascii",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain(
      "x-tollgate-run-id",
    );
    // None of the refused calls reached the provider.
    expect(upstream.requests).toHaveLength(0);
  });

  it("records a drawer turn as a run of its own: its run id is its turn id", async () => {
    session.claims = { userId: acmeAdmin, tenantId: acme };
    const frames = await readSse(await postTurn({ message: "what time is it?" }));
    const turnId = frames.find((f) => f.event === "turn")!.data.turnId as string;
    const [row] = await app.db.select().from(sysAgentTurn).where(eq(sysAgentTurn.id, turnId));
    expect(row?.source).toBe("drawer");
    expect(row?.runId).toBe(turnId);
    const run = await runRow(turnId);
    expect(run).toMatchObject({ runId: turnId, calls: 1, sources: ["drawer"], status: "success" });
  });

  it("aggregates a run's calls, tool calls, tokens and cost, failed if any call failed", async () => {
    await recorder.flush();
    const calls = await app.db.select().from(sysAgentTurn).where(eq(sysAgentTurn.runId, "run-A"));
    expect(calls).toHaveLength(4);
    const run = (await runRow("run-A"))!;
    const cost = calls.reduce<string | null>((sum, c) => addCost(sum, c.cost), "0");
    const first = Math.min(...calls.map((c) => c.startedAt.getTime()));
    const end = Math.max(...calls.map((c) => c.startedAt.getTime() + (c.latencyMs ?? 0)));
    expect(run).toMatchObject({
      key: `${acme}:run-A`,
      tenantId: acme,
      runId: "run-A",
      calls: 4,
      // The /mcp call's tool; the /v1 calls run none of their own.
      toolCalls: 1,
      inputTokens: calls.reduce((n, c) => n + c.inputTokens, 0),
      outputTokens: calls.reduce((n, c) => n + c.outputTokens, 0),
      costStatus: "priced",
      status: "failed",
      sources: ["api", "mcp"],
      firstAt: new Date(first).toISOString(),
      lastAt: new Date(Math.max(...calls.map((c) => c.startedAt.getTime()))).toISOString(),
    });
    expect(run.inputTokens).toBe(2_000);
    expect(normalizeDecimal(run.cost!)).toBe(normalizeDecimal(cost!));
    expect(Number(run.cost)).toBeGreaterThan(0);
    expect(Math.abs(run.durationMs - (end - first))).toBeLessThanOrEqual(1);

    // A run still running, and one with an unpriced call whose total is unknown rather than $0.
    const at = new Date(Date.now() - 60_000);
    const row = (id: string, runId: string, over: Partial<typeof sysAgentTurn.$inferInsert> = {}) => ({
      id,
      tenantId: acme,
      userId: acmeAdmin,
      source: "api" as const,
      requestedModel: "team-gpt",
      servedModel: "gpt-4o-mini",
      status: "success" as const,
      cost: "0.25",
      inputTokens: 10,
      outputTokens: 5,
      startedAt: at,
      latencyMs: 100,
      runId,
      ...over,
    });
    await app.db.insert(sysAgentTurn).values([
      row(crypto.randomUUID(), "run-running"),
      row(crypto.randomUUID(), "run-running", {
        status: "running",
        latencyMs: null,
        cost: null,
        startedAt: new Date(at.getTime() + 1_000),
      }),
      row(crypto.randomUUID(), "run-unpriced"),
      row(crypto.randomUUID(), "run-unpriced", { cost: null, costStatus: "unpriced" }),
    ]);
    expect(await runRow("run-running")).toMatchObject({ status: "running", calls: 2, durationMs: 1_000 });
    expect(await runRow("run-unpriced")).toMatchObject({
      status: "success",
      cost: null,
      costStatus: "unpriced",
      inputTokens: 20,
    });

    // Filters: status, source, a time range no call falls in; the newest activity first.
    const ids = async (filters: Record<string, string>) =>
      ((await provider().rows(acmeCtx(), runsQuery(filters))).rows as RunSummary[]).map((r) => r.runId);
    expect(await ids({ status: "failed" })).toEqual(["run-A"]);
    expect(await ids({ source: "mcp" })).toEqual(["run-A"]);
    expect(await ids({ status: "running" })).toEqual(["run-running"]);
    expect(await ids({ "startedAt.from": "2099-01-01" })).toEqual([]);
    expect((await ids({ "startedAt.to": new Date(at.getTime() + 500).toISOString() })).sort()).toEqual([
      "run-running",
      "run-unpriced",
    ]);
    expect(await ids({})).toContain("run-A");
    const newestFirst = ((await provider().rows(acmeCtx(), runsQuery({}))).rows as RunSummary[]).map((r) =>
      Date.parse(r.lastAt),
    );
    expect(newestFirst).toEqual([...newestFirst].sort((a, b) => b - a));
    await expect(provider().rows(acmeCtx(), runsQuery({ status: "done" }))).rejects.toThrow(/one of/);
    // Pages follow one another without a gap or a repeat.
    const all = await ids({});
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { rows: unknown[]; nextCursor: string | null } = await provider().rows(acmeCtx(), {
        ...runsQuery({}, 2),
        cursor,
      });
      seen.push(...(page.rows as RunSummary[]).map((r) => r.runId));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all);
    expect((await provider().count(acmeCtx(), runsQuery({}))).count).toBe(all.length);
    const metrics = await provider().metrics(acmeCtx(), runsQuery({ status: "failed" }), [
      { key: "runs", label: { en: "", zh: "" }, measure: "calls", aggregation: "count", format: "number" },
      { key: "calls", label: { en: "", zh: "" }, measure: "calls", aggregation: "sum", format: "number" },
    ]);
    expect(metrics).toEqual({ runs: 1, calls: 4 });
  });

  it("replays a run's calls in the order they started, each with its audit trail", async () => {
    const replay = await runReplay(app.db, { tenantId: acme, runId: "run-A" });
    expect(replay.run.calls).toBe(4);
    expect(replay.calls.map((c) => c.turn.id)).toEqual(runA);
    expect(replay.truncated).toBe(false);
    for (const call of replay.calls) {
      expect(call.events[0]).toMatchObject({ seq: 1, type: "request" });
      expect(call.events.map((e) => e.seq)).toEqual(call.events.map((_, i) => i + 1));
    }
    // The /mcp call's tool call and result are in its steps, as its turn replay has them.
    expect(replay.calls[2]!.events.map((e) => e.type)).toEqual(["request", "tool_call", "tool_result"]);
    // The page draws every call, each with anchors of its own (every call's events start at seq 1).
    const html = renderRunReplay(replay);
    expect(html.match(/data-testid="run-call"/g)).toHaveLength(4);
    expect(html.match(/data-testid="waterfall-row"/g)).toHaveLength(4);
    expect(html).toContain('id="call-1-event-1"');
    expect(html).toContain('id="call-4-event-1"');
    expect(html).not.toContain('id="event-1"');
  });

  it("keeps another tenant's runs out of sight, even under the same run id", async () => {
    await chat(globexSecret, { header: "run-A" });
    await chat(globexSecret, { header: "run-globex" });
    await recorder.flush();
    const globexRuns = await app.db.select().from(sysAgentTurn).where(eq(sysAgentTurn.tenantId, globex));
    expect(globexRuns.filter((r) => r.runId === "run-globex")).toHaveLength(1);
    // Acme's run-A still counts only Acme's four calls; run-globex is nowhere in Acme's view.
    expect((await runRow("run-A"))?.calls).toBe(4);
    expect(await runRow("run-globex")).toBeUndefined();
    const acmeIds = ((await provider().rows(acmeCtx(), runsQuery())).rows as RunSummary[]).map(
      (r) => r.runId,
    );
    expect(acmeIds).not.toContain("run-globex");
    expect(await provider().suggest!(acmeCtx(), "runId", "run-", 50)).not.toContainEqual(
      expect.objectContaining({ value: "run-globex" }),
    );
    expect(await provider().suggest!(acmeCtx(), "runId", "run-", 50)).toContainEqual({
      value: "run-A",
      label: "run-A",
    });
    expect(await provider().detail(acmeCtx(), `${globex}:run-globex`)).toBeNull();
    expect(await provider().detail(acmeCtx(), `${acme}:run-A`)).toMatchObject({
      row: { runId: "run-A", calls: 4 },
    });
    expect(await provider().detail(acmeCtx(), "run-A")).toMatchObject({ row: { key: `${acme}:run-A` } });
    expect(await provider().detail(acmeCtx(), "run-globex")).toBeNull();
    await expect(runReplay(app.db, { tenantId: acme, runId: "run-globex" })).rejects.toBeInstanceOf(AppError);
    // Globex's own view of run-A is its one call.
    expect((await runRow("run-A", { tenantId: globex, superAdmin: false }))?.calls).toBe(1);
    // The platform view tells the two runs apart by tenant: its rows' keys name it.
    const platformCtx = { tenantId: null, superAdmin: true };
    expect(await provider().detail(platformCtx, `${globex}:run-A`)).toMatchObject({ row: { calls: 1 } });
    expect(await provider().detail(platformCtx, "run-A")).toBeNull();
    const platform = (
      await provider().rows({ tenantId: null, superAdmin: true }, runsQuery({ runId: "run-A" }))
    ).rows as RunSummary[];
    expect(platform.map((r) => [r.tenantId, r.calls]).sort()).toEqual(
      [
        [acme, 4],
        [globex, 1],
      ].sort(),
    );
  });

  it("lets the copilot's governance_runs answer with the Runs page's numbers, in the turn's tenant only", async () => {
    const tool = app.container.tools.registry.tools().find((t) => t.name === "governance_runs")!;
    const ctx: ToolContext = {
      tenantId: acme,
      userId: acmeAdmin,
      role: "admin",
      conversationId: crypto.randomUUID(),
      turnId: crypto.randomUUID(),
      signal: new AbortController().signal,
      emit: async () => {},
      addMessage: async () => {
        throw new Error("no model reads messages here");
      },
      addUsage: () => {},
      noteUse: () => {},
    };
    const run = async (args: Record<string, unknown>) => {
      const value = await tool.execute(tool.parameters.parse(args), ctx);
      return (value instanceof ResultWithCards ? value.result : value) as Record<string, unknown>;
    };
    const page = (await runRow("run-A"))!;
    const one = await run({ runId: "run-A" });
    expect(one).toMatchObject({
      runId: "run-A",
      status: "failed",
      calls: 4,
      toolCalls: 1,
      inputTokens: page.inputTokens,
      outputTokens: page.outputTokens,
      cost: normalizeDecimal(page.cost!),
      durationMs: page.durationMs,
      sources: ["api", "mcp"],
    });
    expect((one.callList as { turnId: string }[]).map((c) => c.turnId)).toEqual(runA);
    expect(await run({ runId: "run-globex" })).toMatchObject({ found: false });
    const failed = await run({ status: "failed" });
    expect((failed.runs as { runId: string }[]).map((r) => r.runId)).toEqual(["run-A"]);
    const listed = await run({});
    expect((listed.runs as { runId: string }[]).map((r) => r.runId)).not.toContain("run-globex");
    // A member's turn may not use it.
    await expect(tool.execute(tool.parameters.parse({}), { ...ctx, role: "member" })).rejects.toThrow(
      /tenant admins/,
    );
  });
});
