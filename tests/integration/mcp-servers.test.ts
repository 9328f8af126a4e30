// Tenant MCP servers end to end: an admin registers a real MCP server (the official SDK's) through the routes,
// sets its tools' roles, and the drawer's turns call them under the loop's rules (roles, timeouts, error results,
// Stop, audit masking, tools/list_changed); secrets never come back and are stored sealed.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { and, asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { adminChange, mcpServer, sysAgentAudit, sysAgentMessage } from "@/db/schema";
import { createApiKey } from "@/features/keys/server/keys";
import { configFromEnvironment } from "@/lib/gateway/config";
import { type FakeMcpServer, startFakeMcpServer } from "../fakes/mcp-server";
import { call, ScriptedModel, scriptedGateway } from "../fakes/scripted-model";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";
import { session } from "../helpers/session";
import { readSse, type SseFrame } from "../helpers/sse";
import { postTurn } from "../helpers/turns";
import { serveRoutes } from "../helpers/web-server";

vi.mock("@/lib/auth/session", () => import("../helpers/session"));

const servers = await import("@/app/api/mcp/servers/route");
const oneServer = await import("@/app/api/mcp/servers/[id]/route");
const refresh = await import("@/app/api/mcp/servers/[id]/refresh/route");
const toolRoute = await import("@/app/api/mcp/servers/[id]/tools/[tool]/route");
const callRoute = await import("@/app/api/mcp/servers/[id]/tools/[tool]/call/route");
const stopRoute = await import("@/app/api/agent/turns/[id]/stop/route");
const mcpRoute = await import("@/app/mcp/route");

// A fixed key for the tests only (32 bytes, base64).
const TEST_KEY = Buffer.alloc(32, 42).toString("base64");
const SECRET = "Bearer sk-live-0123456789abcdefghijklmnop";
const LOOPBACK = "127.0.0.0/8,::1/128";

const request = (method: string, body?: unknown) =>
  new Request("http://app/api/mcp/servers", {
    method,
    body: body === undefined ? undefined : JSON.stringify(body),
    headers: { "content-type": "application/json" },
  });
const params = <P>(p: P) => ({ params: Promise.resolve(p) });

async function eventually(check: () => Promise<boolean> | boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.each(testDbKinds)("tenant MCP servers on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let fake: FakeMcpServer;
  /** Every body a route answered, to prove no secret ever leaves. */
  const answered: string[] = [];

  const env = (extra: Record<string, string | undefined> = {}) => ({
    ...process.env,
    WEB_FETCH_ALLOW: LOOPBACK,
    MCP_SECRET_KEY: TEST_KEY,
    ...extra,
  });

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    fake = await startFakeMcpServer({ requireHeader: { name: "authorization", value: SECRET } });
  });
  afterAll(async () => {
    await app.close();
    await fake.close();
    const all = answered.join("\n");
    expect(all).not.toContain("0123456789abcdefghijklmnop");
  });
  beforeEach(async () => {
    await app.db.delete(mcpServer);
    await app.rebuild({ env: env(), gateway: configFromEnvironment({ OFFLINE_CHUNK_DELAY_MS: "0" }) });
    // After the rebuild: closing the old container's sessions reaches the server too.
    fake.reset();
    await as("admin@acme.test");
  });

  const as = async (email: string, slug = "acme") => {
    session.claims = { userId: await app.userId(email), tenantId: await app.tenantId(slug) };
  };
  const read = async (res: Response) => {
    const text = await res.text();
    answered.push(text);
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const register = async (body: Record<string, unknown>) =>
    read(await servers.POST(request("POST", body), params({})));
  const helpdesk = async (extra: Record<string, unknown> = {}) => {
    const res = await register({
      name: "helpdesk",
      url: fake.url,
      headers: { Authorization: SECRET },
      ...extra,
    });
    expect(res.status).toBe(201);
    return res.body as { id: string; tools: { name: string; exposedName: string }[] };
  };
  const setTool = async (id: string, tool: string, body: Record<string, unknown>) =>
    read(await toolRoute.PUT(request("PUT", body), params({ id, tool })));
  const testCall = async (id: string, tool: string, args: Record<string, unknown>) =>
    read(await callRoute.POST(request("POST", { arguments: args }), params({ id, tool })));
  const turn = async (message: string, onFrame?: (f: SseFrame) => void | Promise<void>) => {
    const res = await postTurn({ message });
    expect(res.status).toBe(200);
    return readSse(res, onFrame);
  };
  const turnIdOf = (frames: SseFrame[]) => frames[0]!.data.turnId as string;
  const auditOf = (turnId: string) =>
    app.db
      .select()
      .from(sysAgentAudit)
      .where(eq(sysAgentAudit.turnId, turnId))
      .orderBy(asc(sysAgentAudit.seq));
  const changesOf = (objectId: string) =>
    app.db
      .select()
      .from(adminChange)
      .where(and(eq(adminChange.objectType, "mcp_server"), eq(adminChange.objectId, objectId)))
      .orderBy(asc(adminChange.createdAt));

  it("registers a server: connects with its header, lists nested schemas, stores the header sealed", async () => {
    const created = await helpdesk();
    expect(created.tools.map((t) => t.exposedName)).toEqual([
      "helpdesk__create_ticket",
      "helpdesk__echo",
      "helpdesk__docs_search",
      "helpdesk__slow_job",
      "helpdesk__failing_lookup",
      "helpdesk__crash",
      "helpdesk__protocol_error",
      "helpdesk__add_tool",
    ]);
    expect(created).toMatchObject({
      name: "helpdesk",
      transport: "auto",
      headerNames: ["Authorization"],
      status: { reachable: true, toolCount: 8, connectedTransport: "streamable", lastError: null },
    });
    const ticket = (created.tools as unknown as { name: string; inputSchema: unknown }[]).find(
      (t) => t.name === "create_ticket",
    );
    expect(ticket?.inputSchema).toMatchObject({
      properties: { customer: { type: "object" }, items: { type: "array", items: { type: "object" } } },
    });
    expect(fake.requests.at(-1)!.headers.authorization).toBe(SECRET);

    // At rest: the header's name in clear, its value sealed; nowhere in the row or the change log.
    const [row] = await app.db.select().from(mcpServer).where(eq(mcpServer.id, created.id));
    expect(row!.headers).toEqual([{ name: "Authorization", sealed: expect.stringMatching(/^v1\./) }]);
    expect(JSON.stringify(row)).not.toContain("sk-live");
    const [change] = await changesOf(created.id);
    expect(change).toMatchObject({ action: "mcp_server.registered", actorEmail: "admin@acme.test" });
    expect(change!.after).toMatchObject({ name: "helpdesk", headerNames: ["Authorization"] });
    expect(JSON.stringify(change)).not.toContain("sk-live");

    const list = await read(await servers.GET(request("GET"), params({})));
    expect(list.body.servers).toEqual([
      expect.objectContaining({
        id: created.id,
        headerNames: ["Authorization"],
        status: expect.objectContaining({ reachable: true, toolCount: 8, latencyMs: expect.any(Number) }),
      }),
    ]);
    const detail = await read(await oneServer.GET(request("GET"), params({ id: created.id })));
    expect(detail.body.tools[0]).toMatchObject({
      name: "create_ticket",
      enabled: true,
      roles: null,
      requiresConfirmation: false,
    });
  });

  it("refuses bad input by field, taken and built-in names, members, and other tenants' servers", async () => {
    const bad = await register({ name: "Help Desk", url: "ftp://example.com/mcp" });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.error.fields).sort()).toEqual(["name", "url"]);
    const creds = await register({ name: "creds", url: "https://user:pw@example.com/mcp" });
    expect(creds.body.error.fields.url[0]).toMatch(/credentials in headers/);
    const reserved = await register({ name: "hdr", url: fake.url, headers: { "Mcp-Session-Id": "x" } });
    expect(reserved.status).toBe(422);
    expect(reserved.body.error.fields).toHaveProperty(["headers", "Mcp-Session-Id"] as never);
    const builtIn = await register({ name: "web", url: fake.url });
    expect(builtIn).toMatchObject({
      status: 409,
      body: { error: { fields: { name: [expect.any(String)] } } },
    });

    const { id } = await helpdesk();
    const again = await register({ name: "helpdesk", url: fake.url, headers: { Authorization: SECRET } });
    expect(again.status).toBe(409);

    await as("member@acme.test");
    expect((await register({ name: "mine", url: fake.url })).status).toBe(403);
    await as("admin@globex.test", "globex");
    expect((await read(await oneServer.GET(request("GET"), params({ id })))).status).toBe(404);
    expect((await setTool(id, "echo", { enabled: false })).status).toBe(404);
    expect((await testCall(id, "echo", { text: "x" })).status).toBe(404);
    expect((await read(await refresh.POST(request("POST"), params({ id })))).status).toBe(404);
    expect((await read(await oneServer.DELETE(request("DELETE"), params({ id })))).status).toBe(404);
    expect((await read(await servers.GET(request("GET"), params({})))).body.servers).toEqual([]);
    await as("admin@acme.test");
    expect((await setTool(id, "no_such_tool", { enabled: false })).status).toBe(404);
    expect((await setTool(id, "echo", {})).status).toBe(422);
    expect((await setTool(id, "echo", { roles: [] })).status).toBe(422);
  });

  it("refuses a URL resolving to a loopback address unless WEB_FETCH_ALLOW opens it; nothing is stored", async () => {
    await app.rebuild({ env: env({ WEB_FETCH_ALLOW: undefined }) });
    const refused = await register({ name: "local", url: fake.url, headers: { Authorization: SECRET } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.fields.url).toEqual([
      "the URL is refused: 127.0.0.1 is a loopback address (an operator can open internal ranges with WEB_FETCH_ALLOW)",
    ]);
    const named = await register({ name: "local", url: `http://localhost:${fake.port}/mcp` });
    expect(named.body.error.message).toMatch(/localhost resolves to .* loopback address/);
    expect(fake.requests).toHaveLength(0);
    expect(await app.db.select().from(mcpServer)).toEqual([]);
  });

  it("refuses headers without MCP_SECRET_KEY, and a server that refuses the connection, naming why", async () => {
    await app.rebuild({ env: env({ MCP_SECRET_KEY: undefined }) });
    const noKey = await register({ name: "helpdesk", url: fake.url, headers: { Authorization: SECRET } });
    expect(noKey.status).toBe(400);
    expect(noKey.body.error.fields.headers[0]).toMatch(/MCP_SECRET_KEY/);
    const unauthorized = await register({ name: "helpdesk", url: fake.url, transport: "streamable" });
    expect(unauthorized.status).toBe(400);
    expect(unauthorized.body.error.fields.url[0]).toMatch(/HTTP 401/);
    expect(await app.db.select().from(mcpServer)).toEqual([]);
  });

  it("a drawer turn calls server__tool through the offline model and the result reaches the model", async () => {
    await helpdesk();
    await as("member@acme.test");
    const frames = await turn('please echo "hello from the drawer"');
    expect(frames.find((f) => f.event === "tool_call")?.data.call).toMatchObject({
      name: "helpdesk__echo",
      args: { text: "hello from the drawer" },
    });
    expect(frames.find((f) => f.event === "tool_result")?.data).toMatchObject({
      name: "helpdesk__echo",
      ok: true,
      result: "echo: hello from the drawer",
    });
    const answer = frames
      .filter((f) => f.event === "text")
      .map((f) => f.data.delta)
      .join("");
    expect(answer).toContain("echo: hello from the drawer");
    expect(fake.calls).toEqual([
      expect.objectContaining({ name: "echo", arguments: { text: "hello from the drawer" } }),
    ]);
    expect(frames.at(-1)).toMatchObject({ event: "done", data: { summary: { status: "success" } } });
  });

  it("records the call in the audit trail with secrets in the arguments and result masked", async () => {
    await helpdesk();
    await as("member@acme.test");
    const frames = await turn('echo "my key is sk-proj-abcdefghij0123456789xyz"');
    const turnId = turnIdOf(frames);
    // The server got the real argument; the audit trail never holds it.
    expect(fake.calls[0]!.arguments.text).toBe("my key is sk-proj-abcdefghij0123456789xyz");
    await eventually(async () => (await auditOf(turnId)).some((e) => e.type === "tool_result"));
    const events = await auditOf(turnId);
    const toolCall = events.find((e) => e.type === "tool_call")!;
    expect(toolCall.payload).toMatchObject({ name: "helpdesk__echo" });
    const text = JSON.stringify(events);
    expect(text).toContain("[masked:openai_key]");
    expect(text).not.toContain("abcdefghij0123456789xyz");
  });

  it("hides a tool from roles it is not for, and refuses a call of it anyway", async () => {
    const { id } = await helpdesk();
    const set = await setTool(id, "echo", { roles: ["admin"] });
    expect(set.body.tool).toMatchObject({ name: "echo", roles: ["admin"], enabled: true });
    await setTool(id, "crash", { enabled: false });
    const model = new ScriptedModel([
      { toolCalls: [call("helpdesk__echo", { text: "sneaky" }), call("helpdesk__crash")] },
      { text: "done" },
    ]);
    await app.rebuild({ env: env(), gateway: scriptedGateway(model) });
    await as("member@acme.test");
    const frames = await turn("anything");
    const offered = (model.requests[0]!.tools ?? []).map((t) => t.name);
    expect(offered).toContain("helpdesk__create_ticket");
    expect(offered).not.toContain("helpdesk__echo");
    expect(offered).not.toContain("helpdesk__crash");
    const results = frames.filter((f) => f.event === "tool_result").map((f) => f.data);
    expect(results).toEqual([
      expect.objectContaining({ name: "helpdesk__echo", ok: false, result: '{"error":"not allowed"}' }),
      expect.objectContaining({ name: "helpdesk__crash", ok: false, result: '{"error":"not allowed"}' }),
    ]);
    expect(frames.filter((f) => f.event === "guardrail")).toHaveLength(2);
    expect(fake.calls).toEqual([]);
    await eventually(async () => (await auditOf(turnIdOf(frames))).length > 0);
    const [opened] = await auditOf(turnIdOf(frames));
    expect(opened!.payload.toolsOffered).toContain("helpdesk__create_ticket");
    expect(opened!.payload.toolsOffered).not.toContain("helpdesk__echo");

    // The admin is offered the admin-only tool (but not the disabled one).
    await as("admin@acme.test");
    await turn("anything else");
    const adminOffered = (model.requests.at(-1)!.tools ?? []).map((t) => t.name);
    expect(adminOffered).toContain("helpdesk__echo");
    expect(adminOffered).not.toContain("helpdesk__crash");
    const changes = (await changesOf(id)).map((c) => c.action);
    expect(changes).toEqual(["mcp_server.registered", "mcp_server.tool_updated", "mcp_server.tool_updated"]);
  });

  it("gives the model an error result for an error result, a throwing tool, a JSON-RPC error and bad arguments", async () => {
    await helpdesk();
    const model = new ScriptedModel([
      {
        toolCalls: [
          call("helpdesk__failing_lookup", { id: "42" }),
          call("helpdesk__crash"),
          call("helpdesk__protocol_error"),
          call("helpdesk__create_ticket", { title: "x", customer: { tier: "gold" } }),
        ],
      },
      { text: "done" },
    ]);
    await app.rebuild({ env: env(), gateway: scriptedGateway(model) });
    const frames = await turn("go");
    const results = Object.fromEntries(
      frames.filter((f) => f.event === "tool_result").map((f) => [f.data.name, [f.data.ok, f.data.result]]),
    );
    expect(results).toEqual({
      helpdesk__failing_lookup: [false, '{"error":"lookup failed: no record 42"}'],
      helpdesk__crash: [false, '{"error":"the crash tool blew up"}'],
      helpdesk__protocol_error: [
        false,
        '{"error":"MCP error -32603: internal error: the tool backend is down"}',
      ],
      helpdesk__create_ticket: [
        false,
        '{"error":"invalid arguments for helpdesk__create_ticket: customer.name: required; customer.tier: must be one of \\"free\\", \\"pro\\", \\"enterprise\\""}',
      ],
    });
    // The bad arguments never reached the server.
    expect(fake.calls.map((c) => c.name).sort()).toEqual(["crash", "failing_lookup"]);
    expect(frames.at(-1)).toMatchObject({ event: "done", data: { summary: { status: "success" } } });
  });

  it("ends a call at the server's timeout with an error result, cancelling it on the server", async () => {
    await helpdesk({ timeoutMs: 1_000 });
    await as("member@acme.test");
    const started = Date.now();
    const frames = await turn("run the slow job please");
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(frames.find((f) => f.event === "tool_result")?.data).toMatchObject({
      name: "helpdesk__slow_job",
      ok: false,
      result: '{"error":"helpdesk__slow_job timed out after 1000 ms"}',
    });
    await fake.waitFor(() => fake.cancelled.length === 1);
  });

  it("Stop mid-call cancels the running tool on the server and records the turn as stopped", async () => {
    await helpdesk();
    await as("member@acme.test");
    let turnId = "";
    const frames = await turn("run the slow job please", async (f) => {
      if (f.event === "turn") turnId = f.data.turnId as string;
      if (f.event === "tool_call") {
        await fake.waitFor(() => fake.calls.some((c) => c.name === "slow_job"));
        const stopped = await stopRoute.POST(
          new Request("http://app/x", { method: "POST" }),
          params({ id: turnId }),
        );
        expect(stopped.status).toBe(202);
      }
    });
    expect(frames.at(-1)).toMatchObject({ event: "done", data: { summary: { status: "stopped" } } });
    // The stored history closes the call with a cancelled result (no dangling tool call).
    await eventually(async () => {
      const stored = await app.db.select().from(sysAgentMessage).where(eq(sysAgentMessage.turnId, turnId));
      return JSON.stringify(stored.filter((m) => m.role === "tool")).includes("cancelled");
    });
    await fake.waitFor(() => fake.cancelled.length === 1);
    expect(fake.methods()).toContain("notifications/cancelled");
  });

  it("stores the new tool list when the server announces tools/list_changed, and offers the new tool", async () => {
    const { id } = await helpdesk();
    const added = await testCall(id, "add_tool", {});
    expect(added.body).toMatchObject({ ok: true, content: "weather_report added" });
    await eventually(async () => {
      const detail = await read(await oneServer.GET(request("GET"), params({ id })));
      return detail.body.tools.some((t: { name: string }) => t.name === "weather_report");
    });
    // A tool that appears later starts switched off: not offered until an admin enables it.
    const detail = await read(await oneServer.GET(request("GET"), params({ id })));
    expect(detail.body.tools.find((t: { name: string }) => t.name === "weather_report")).toMatchObject({
      enabled: false,
      addedLater: true,
    });
    await as("member@acme.test");
    const before = await turn('weather report for "Lisbon"');
    expect(JSON.stringify(before)).not.toContain("helpdesk__weather_report");
    await as("admin@acme.test");
    const enabled = await setTool(id, "weather_report", { enabled: true });
    expect(enabled.body.tool).toMatchObject({ enabled: true, addedLater: false });
    await as("member@acme.test");
    const frames = await turn('weather report for "Lisbon"');
    expect(frames.find((f) => f.event === "tool_result")?.data).toMatchObject({
      name: "helpdesk__weather_report",
      ok: true,
      result: "sunny in Lisbon",
    });
  });

  it("refreshes on demand, test-calls as the admin (recorded, masked), and deletes", async () => {
    const { id } = await helpdesk();
    fake.removeTool("crash");
    const fresh = await read(await refresh.POST(request("POST"), params({ id })));
    expect(fresh.status).toBe(200);
    expect(fresh.body.tools.map((t: { name: string }) => t.name)).not.toContain("crash");

    const ok = await testCall(id, "echo", { text: "token sk-test-abcdefghij0123456789" });
    expect(ok.body).toEqual({
      ok: true,
      content: "echo: token sk-test-abcdefghij0123456789",
      durationMs: expect.any(Number),
    });
    const badArgs = await testCall(id, "echo", { words: 1 });
    expect(badArgs.body).toMatchObject({
      ok: false,
      error: "invalid arguments for helpdesk__echo: text: required",
    });
    const failed = await testCall(id, "failing_lookup", { id: "9" });
    expect(failed.body).toMatchObject({ ok: false, error: "lookup failed: no record 9" });
    // A disabled tool can still be tried by the admin.
    await setTool(id, "docs.search", { enabled: false });
    expect((await testCall(id, "docs.search", { query: "setup" })).body).toMatchObject({ ok: true });
    expect((await testCall(id, "nope", {})).status).toBe(404);

    const log = await changesOf(id);
    expect(log.map((c) => c.action)).toEqual([
      "mcp_server.registered",
      "mcp_server.refreshed",
      "mcp_server.tool_test_called",
      "mcp_server.tool_test_called",
      "mcp_server.tool_test_called",
      "mcp_server.tool_updated",
      "mcp_server.tool_test_called",
    ]);
    expect(log[1]!.after).toMatchObject({ tools: expect.not.arrayContaining(["crash"]) });
    expect(log[2]!.after).toMatchObject({ tool: "echo", ok: true });
    expect(JSON.stringify(log)).not.toContain("abcdefghij0123456789");

    const gone = await read(await oneServer.DELETE(request("DELETE"), params({ id })));
    expect(gone).toEqual({ status: 200, body: { id, deleted: true } });
    expect((await read(await oneServer.DELETE(request("DELETE"), params({ id })))).status).toBe(404);
    expect((await changesOf(id)).at(-1)).toMatchObject({ action: "mcp_server.deleted", after: null });
    await as("member@acme.test");
    const frames = await turn('please echo "anyone there?"');
    expect(frames.some((f) => f.event === "tool_call")).toBe(false);
  });

  it("works with a server that only speaks HTTP+SSE, and masks a key in its URL", async () => {
    const url = `${fake.sseUrl}?api_key=k3y0123456789abc`;
    const res = await register({ name: "legacy", url, headers: { Authorization: SECRET } });
    expect(res.status).toBe(201);
    expect(res.body.status.connectedTransport).toBe("sse");
    // A key in the URL is used, and not shown back.
    expect(fake.requests.some((r) => r.path === "/sse?api_key=k3y0123456789abc")).toBe(true);
    expect(res.body.url).toBe(`${fake.sseUrl}?api_key=[masked]`);
    const result = await testCall(res.body.id, "echo", { text: "over sse" });
    expect(result.body).toMatchObject({ ok: true, content: "echo: over sse" });
    expect(fake.calls.at(-1)).toMatchObject({ name: "echo", transport: "sse" });
  });

  it("an outside agent calls a registered server's tool through /mcp, under the same settings", async () => {
    const { id } = await helpdesk();
    await setTool(id, "crash", { roles: ["admin"] });
    const { secret } = await createApiKey(app.db, {
      tenantId: await app.tenantId("acme"),
      name: "outside agent",
      createdBy: await app.userId("admin@acme.test"),
    });
    const web = await serveRoutes({ POST: mcpRoute.POST, GET: mcpRoute.GET, DELETE: mcpRoute.DELETE });
    const client = new Client({ name: "outside-agent", version: "1.0.0" });
    try {
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${web.url}/mcp`), {
          requestInit: { headers: { Authorization: `Bearer ${secret}` } },
        }),
      );
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(["helpdesk__echo", "helpdesk__create_ticket"]));
      expect(names).not.toContain("helpdesk__crash");
      const result = await client.callTool({ name: "helpdesk__echo", arguments: { text: "via /mcp" } });
      expect(result.content).toEqual([{ type: "text", text: "echo: via /mcp" }]);
      expect(fake.calls.at(-1)).toMatchObject({ name: "echo", arguments: { text: "via /mcp" } });
    } finally {
      await client.close();
      await web.close();
    }
  });
});
