import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type CallToolResult, ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { asc, eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { sysAgentAudit, sysAgentTurn, usageLimit } from "@/db/schema";
import { processGuardrailCache, saveGuardrailPolicy } from "@/features/guardrails/server";
import { createApiKey, revokeApiKey } from "@/features/keys/server/keys";
import { TURN_ID_META } from "@/features/mcp/server/endpoint/handler";
import { withCards } from "@/lib/agent/cards";
import { defineTool, StaticToolSet } from "@/lib/agent/tool";
import { invalidatePolicy } from "@/lib/pipeline/policy";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";
import { serveRoutes } from "../helpers/web-server";

const route = await import("@/app/mcp/route");

const waiting = { started: false, aborted: false };
/** When set, the tenant's tool source fails (a database or MCP client error) with this message. */
let sourceFailure: string | null = null;

/** The tenant's own tools (as a registered MCP server's would arrive): one per rule /mcp applies. */
const crmTools = new StaticToolSet("crm", [
  defineTool({
    name: "crm__lookup",
    description: "A customer by name, with a nested filter",
    parameters: z.object({
      name: z.string(),
      filter: z.object({ region: z.enum(["eu", "us"]), tags: z.array(z.string()).optional() }).optional(),
    }),
    // Cards are the drawer's: an outside agent gets the result only.
    execute: async ({ name }) =>
      withCards(
        { customer: name, tier: "gold" },
        { kind: "links", title: "See also", links: [{ label: "Ledger", href: "/dev/agent/turns" }] },
      ),
  }),
  defineTool({
    name: "crm__fails",
    description: "Always fails, naming a secret",
    parameters: z.object({}),
    execute: async () => {
      throw new Error("upstream refused Bearer sk-live0123456789abcdefghijklmn");
    },
  }),
  defineTool({
    name: "crm__slow",
    description: "Takes longer than its timeout",
    timeoutMs: 50,
    parameters: z.object({}),
    execute: (_args, ctx) =>
      new Promise((resolve) => {
        const timer = setTimeout(() => resolve("late"), 5_000);
        ctx.signal.addEventListener("abort", () => clearTimeout(timer));
      }),
  }),
  defineTool({
    name: "crm__admin_export",
    description: "For tenant admins",
    roles: ["admin"],
    parameters: z.object({}),
    execute: async () => "exported",
  }),
  defineTool({
    name: "crm__delete_customer",
    description: "Needs a person's approval",
    requiresConfirmation: true,
    parameters: z.object({ name: z.string() }),
    execute: async () => "deleted",
  }),
  defineTool({
    name: "crm__wait",
    description: "Runs until its caller goes away",
    parameters: z.object({}),
    execute: (_args, ctx) =>
      new Promise((_resolve, reject) => {
        waiting.started = true;
        ctx.signal.addEventListener("abort", () => {
          waiting.aborted = true;
          reject(new Error("aborted"));
        });
      }),
  }),
  defineTool({
    name: "crm__long",
    description: "A long answer",
    parameters: z.object({}),
    execute: async () => "x".repeat(9_000),
  }),
]);

describe.each(testDbKinds)("Tollgate as an MCP server (/mcp) on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let server: Awaited<ReturnType<typeof serveRoutes>>;
  let acme: string;
  let adminId: string;
  const clients: Client[] = [];

  const newKey = async (allowedTools: string[] | null = null, tenant = acme, createdBy = adminId) =>
    createApiKey(app.db, { tenantId: tenant, name: `agent ${Math.random()}`, createdBy, allowedTools });

  const connect = async (secret: string) => {
    const client = new Client({ name: "outside-agent", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${secret}` } },
      }),
    );
    clients.push(client);
    return client;
  };

  const turnOf = async (result: CallToolResult) => {
    const turnId = result._meta?.[TURN_ID_META] as string;
    const [row] = await app.db.select().from(sysAgentTurn).where(eq(sysAgentTurn.id, turnId));
    const events = await app.db
      .select()
      .from(sysAgentAudit)
      .where(eq(sysAgentAudit.turnId, turnId))
      .orderBy(asc(sysAgentAudit.seq));
    return { row: row!, events };
  };

  const textOf = (result: CallToolResult) => (result.content as { type: string; text: string }[])[0]!.text;

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    acme = await app.tenantId("acme");
    adminId = await app.userId("admin@acme.test");
    app.container.tools.registry.setTenantSource({
      toolSets: async (tenantId) => {
        if (sourceFailure) throw new Error(sourceFailure);
        return tenantId === acme ? [crmTools] : [];
      },
    });
    server = await serveRoutes({ POST: route.POST, GET: route.GET, DELETE: route.DELETE });
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });
  afterAll(async () => {
    await server.close();
    await app.close();
  });

  it("lists the tools a member may call, the tenant's own among them, and not the admin, conversation, user or confirmation ones", async () => {
    const { secret } = await newKey();
    const client = await connect(secret);
    expect(client.getServerVersion()?.name).toBe("tollgate");
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining([
        "current_time",
        "convert_time",
        "query_orders",
        "get_order",
        "web_fetch",
        "crm__lookup",
        "crm__fails",
      ]),
    );
    for (const hidden of [
      "governance_query",
      "governance_metrics",
      "governance_chart",
      "crm__admin_export",
      "crm__delete_customer",
      "todo_list",
      "task_start",
      "schedule_create",
      "remember",
      "recall",
      "delegate",
    ])
      expect(names).not.toContain(hidden);
    // The JSON Schema the model would see, nested objects and enums included.
    const lookup = tools.find((t) => t.name === "crm__lookup")!;
    expect(lookup.inputSchema).toEqual(crmTools.tools()[0]!.schema.parameters);
    expect(lookup.inputSchema).toMatchObject({
      type: "object",
      required: ["name"],
      properties: { filter: { type: "object", properties: { region: { enum: ["eu", "us"] } } } },
    });
  });

  it("another tenant's key sees its own tools, never this tenant's", async () => {
    const globex = await app.tenantId("globex");
    const { secret } = await newKey(null, globex, await app.userId("admin@globex.test"));
    const names = (await (await connect(secret)).listTools()).tools.map((t) => t.name);
    expect(names).toContain("query_orders");
    expect(names.some((n) => n.startsWith("crm__"))).toBe(false);
  });

  it("calls a tool: text and structured content, no cards, one ledger row (source mcp) with a masked audit trail", async () => {
    const { secret, key } = await newKey();
    const client = await connect(secret);
    const result = (await client.callTool({
      name: "query_orders",
      arguments: { status: "open", apiKey: "tg_should-never-be-stored-0123456789" },
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const parsed = JSON.parse(textOf(result));
    expect(parsed.count).toBeGreaterThan(0);
    expect(parsed.orders.every((o: { status: string }) => o.status === "open")).toBe(true);
    expect(result.structuredContent).toEqual(parsed);

    const { row, events } = await turnOf(result);
    expect(row).toMatchObject({
      tenantId: acme,
      userId: adminId,
      apiKeyId: key.id,
      conversationId: null,
      source: "mcp",
      status: "success",
      requestedModel: "tool:query_orders",
      servedModel: null,
      inputTokens: 0,
      outputTokens: 0,
      costStatus: "priced",
      rounds: 0,
      toolTrace: [{ name: "query_orders", ok: true, durationMs: expect.any(Number) }],
    });
    expect(Number(row.cost)).toBe(0);
    expect(events.map((e) => e.type)).toEqual(["request", "tool_call", "tool_result"]);
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(events[0]!.payload).toMatchObject({ source: "mcp", tool: "query_orders" });
    const trail = JSON.stringify(events.map((e) => e.payload));
    expect(trail).not.toContain("tg_should-never-be-stored");
    expect(events[1]!.payload).toMatchObject({ name: "query_orders", args: { apiKey: "[masked]" } });
    expect(events[2]!.payload).toMatchObject({ name: "query_orders", ok: true });

    const carded = (await client.callTool({
      name: "crm__lookup",
      arguments: { name: "Ada" },
    })) as CallToolResult;
    expect(carded.content).toEqual([{ type: "text", text: '{"customer":"Ada","tier":"gold"}' }]);
    expect(JSON.stringify(carded)).not.toContain("Ledger");
  });

  it("a tool's failure is an isError result under the loop's rules: thrown (masked), bad arguments, timeout; long results are cut", async () => {
    const { secret } = await newKey();
    const client = await connect(secret);

    const thrown = (await client.callTool({ name: "crm__fails", arguments: {} })) as CallToolResult;
    expect(thrown.isError).toBe(true);
    expect(JSON.parse(textOf(thrown)).error).toMatch(/^upstream refused Bearer \[masked:[a-z_]+\]$/);
    const failed = await turnOf(thrown);
    expect(failed.row).toMatchObject({ status: "failed", errorClass: "tool_error", source: "mcp" });
    expect(failed.row.errorMessage).not.toContain("sk-live");
    expect(failed.events.at(-1)).toMatchObject({ type: "tool_result", payload: { ok: false } });

    const invalid = (await client.callTool({
      name: "query_orders",
      arguments: { status: "lost" },
    })) as CallToolResult;
    expect(invalid.isError).toBe(true);
    expect(textOf(invalid)).toContain("invalid arguments for query_orders: status");
    expect((await turnOf(invalid)).row).toMatchObject({ status: "failed", errorClass: "invalid_arguments" });

    const notFound = (await client.callTool({
      name: "get_order",
      arguments: { orderId: "Z-0" },
    })) as CallToolResult;
    expect(notFound).toMatchObject({ isError: true, structuredContent: { error: "order Z-0 not found" } });

    const slow = (await client.callTool({ name: "crm__slow", arguments: {} })) as CallToolResult;
    expect(slow.isError).toBe(true);
    expect(textOf(slow)).toContain("crm__slow timed out after 50 ms");
    expect((await turnOf(slow)).row).toMatchObject({ status: "failed", errorClass: "timeout" });

    const long = (await client.callTool({ name: "crm__long", arguments: {} })) as CallToolResult;
    expect(long.isError).toBeFalsy();
    expect(textOf(long)).toMatch(/^x{8000}\n…\[truncated: 1000 more characters\]$/);
    expect(long.structuredContent).toBeUndefined();
  });

  it("a tool_input guardrail blocks a call before its tool runs: an isError result naming the rule, a ledger row and a guardrail event", async () => {
    const { secret, key } = await newKey();
    const client = await connect(secret);
    const actor = { id: adminId, email: "admin@acme.test" };
    const policy = (scope: { sources?: ("mcp" | "drawer")[]; keys?: string[] }) => ({
      rules: [
        {
          id: "no-blocked-customer",
          name: "No blocked customers",
          stage: "tool_input" as const,
          check: { type: "deny_list" as const, terms: ["Mallory"], label: "blocked_customer" },
          action: "block" as const,
          onError: "closed" as const,
          enabled: true,
          scope,
        },
      ],
    });
    try {
      await saveGuardrailPolicy(app.db, acme, policy({ sources: ["mcp"], keys: [key.id] }), actor);
      processGuardrailCache().forget(acme);
      const blocked = (await client.callTool({
        name: "crm__lookup",
        arguments: { name: "Mallory" },
      })) as CallToolResult;
      expect(blocked.isError).toBe(true);
      expect(JSON.parse(textOf(blocked)).error).toBe(
        'Blocked by the guardrail "No blocked customers" (rule no-blocked-customer): the tool\'s arguments contain blocked customer.',
      );
      const { row, events } = await turnOf(blocked);
      expect(row).toMatchObject({ status: "failed", errorClass: "guardrail_blocked", source: "mcp" });
      expect(events.map((e) => e.type)).toEqual(["request", "tool_call", "guardrail", "tool_result"]);
      expect(events[2]!.payload).toMatchObject({ code: "guardrail_blocked", tool: "crm__lookup" });

      // Other arguments pass; a rule scoped to the drawer does not apply to /mcp.
      const allowed = (await client.callTool({
        name: "crm__lookup",
        arguments: { name: "Ada" },
      })) as CallToolResult;
      expect(allowed.isError).toBeFalsy();
      await saveGuardrailPolicy(app.db, acme, policy({ sources: ["drawer"] }), actor);
      processGuardrailCache().forget(acme);
      const elsewhere = (await client.callTool({
        name: "crm__lookup",
        arguments: { name: "Mallory" },
      })) as CallToolResult;
      expect(elsewhere.isError).toBeFalsy();
    } finally {
      await saveGuardrailPolicy(app.db, acme, { rules: [] }, actor);
      processGuardrailCache().forget(acme);
    }
  });

  it("a key limited to some tools lists only those and is refused the others, each refusal a ledger row", async () => {
    const { secret, key } = await newKey(["current_time", "crm__lookup", "governance_query", "no_such_tool"]);
    const client = await connect(secret);
    const names = (await client.listTools()).tools.map((t) => t.name).sort();
    // An admin-only tool in the list still needs the role; a name the tenant lacks is simply not there.
    expect(names).toEqual(["crm__lookup", "current_time"]);

    const refused = await client.callTool({ name: "query_orders", arguments: {} }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(McpError);
    expect((refused as McpError).code).toBe(ErrorCode.InvalidParams);
    // Said once: "MCP error -32602: query_orders is not available…", as the client prints any server's error.
    expect((refused as McpError).message).toBe(
      "MCP error -32602: query_orders is not available to this API key: it is not in this API key's allowed tools.",
    );
    const adminOnly = await client
      .callTool({ name: "governance_query", arguments: {} })
      .catch((e: unknown) => e);
    expect((adminOnly as McpError).message).toContain("governance_query is not available to this API key");
    const unknown = await client.callTool({ name: "no_such_tool", arguments: {} }).catch((e: unknown) => e);
    expect((unknown as McpError).message).toBe("MCP error -32602: Unknown tool: no_such_tool");

    const rows = await app.db.select().from(sysAgentTurn).where(eq(sysAgentTurn.apiKeyId, key.id));
    expect(rows.map((r) => [r.requestedModel, r.status, r.errorClass]).sort()).toEqual([
      ["tool:governance_query", "failed", "tool_not_allowed"],
      ["tool:no_such_tool", "failed", "unknown_tool"],
      ["tool:query_orders", "failed", "tool_not_allowed"],
    ]);
    const refusal = rows.find((r) => r.requestedModel === "tool:query_orders")!;
    const events = await app.db.select().from(sysAgentAudit).where(eq(sysAgentAudit.turnId, refusal.id));
    expect(events.map((e) => e.type).sort()).toEqual(["guardrail", "request"]);
    expect(events.find((e) => e.type === "guardrail")!.payload).toMatchObject({
      code: "tool_not_allowed",
      tool: "query_orders",
    });

    const ok = (await client.callTool({ name: "current_time", arguments: {} })) as CallToolResult;
    expect(ok.isError).toBeFalsy();
  });

  it("refuses a missing, unknown or revoked key with 401 and a JSON-RPC error, at once after revocation", async () => {
    const { secret, key } = await newKey();
    const client = await connect(secret);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);

    const initialize = (headers: Record<string, string>) =>
      fetch(`${server.url}/mcp`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...headers,
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: {
            protocolVersion: "2025-06-18",
            capabilities: {},
            clientInfo: { name: "curl", version: "1" },
          },
        }),
      });
    const missing = await initialize({});
    expect(missing.status).toBe(401);
    expect(missing.headers.get("www-authenticate")).toMatch(/^Bearer /);
    expect(await missing.json()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32000 } });
    // A session cookie is not a key.
    expect((await initialize({ cookie: "authjs.session-token=anything" })).status).toBe(401);
    expect((await initialize({ authorization: "Bearer tg_not-a-real-key" })).status).toBe(401);

    await revokeApiKey(app.db, { tenantId: acme, id: key.id });
    const revoked = await initialize({ authorization: `Bearer ${secret}` });
    expect(revoked.status).toBe(401);
    expect((await revoked.json()).error.message).toContain("not valid");
    await expect(client.listTools()).rejects.toMatchObject({ code: 401 });
    await expect(connect(secret)).rejects.toThrow();
  });

  it("a caller that hangs up mid-call stops the tool: it gets the abort and its row ends stopped", async () => {
    const { secret, key } = await newKey();
    const client = await connect(secret);
    const pending = client.callTool({ name: "crm__wait", arguments: {} }).catch(() => "gone");
    await expect.poll(() => waiting.started).toBe(true);
    await client.close();
    expect(await pending).toBe("gone");
    await expect.poll(() => waiting.aborted).toBe(true);
    await expect
      .poll(async () => {
        const rows = await app.db.select().from(sysAgentTurn).where(eq(sysAgentTurn.apiKeyId, key.id));
        return rows.map((r) => [r.status, r.toolTrace]);
      })
      .toEqual([
        ["stopped", [{ name: "crm__wait", ok: false, error: "cancelled", durationMs: expect.any(Number) }]],
      ]);
    waiting.started = false;
    waiting.aborted = false;
  });

  it("counts calls against the key's requests per minute: over it, an isError result, a ledger row and a guardrail", async () => {
    const { secret, key } = await newKey();
    await app.db
      .insert(usageLimit)
      .values({ tenantId: acme, scope: "key", subjectId: key.id, requestsPerMinute: 1 });
    invalidatePolicy(acme);
    const client = await connect(secret);
    const results: CallToolResult[] = [];
    // Three calls: two of them share a minute window even if the first lands just before a minute ends.
    for (let i = 0; i < 3; i++)
      results.push((await client.callTool({ name: "current_time", arguments: {} })) as CallToolResult);
    expect(results[0]!.isError).toBeFalsy();
    const limited = results.find((r) => r.isError)!;
    expect(JSON.parse(textOf(limited)).error).toMatch(
      /^Rate limit reached: 1 requests per minute for this API key/,
    );
    const { row, events } = await turnOf(limited);
    expect(row).toMatchObject({ status: "failed", errorClass: "rate_limit_exceeded", source: "mcp" });
    expect(events.map((e) => e.type)).toEqual(["request", "guardrail"]);
    expect(events[1]!.payload).toMatchObject({ code: "rate_limit" });
  });

  it("an internal failure is a JSON-RPC internal error without its detail, and no ledger row", async () => {
    const { secret, key } = await newKey();
    const client = await connect(secret);
    sourceFailure = "connect ECONNREFUSED 10.0.0.7:5432 password=hunter2";
    try {
      const listed = await client.listTools().catch((e: unknown) => e);
      expect(listed).toBeInstanceOf(McpError);
      expect((listed as McpError).code).toBe(ErrorCode.InternalError);
      expect((listed as McpError).message).toMatch(/internal error \(request id [0-9a-f-]{36}\)/);
      expect((listed as McpError).message).not.toContain("hunter2");
      const called = await client.callTool({ name: "current_time", arguments: {} }).catch((e: unknown) => e);
      expect((called as McpError).code).toBe(ErrorCode.InternalError);
    } finally {
      sourceFailure = null;
    }
    expect(await app.db.select().from(sysAgentTurn).where(eq(sysAgentTurn.apiKeyId, key.id))).toEqual([]);
  });

  it("is stateless: GET and DELETE are 405 with a JSON-RPC error, and a page on another site is refused", async () => {
    const { secret } = await newKey();
    const auth = { authorization: `Bearer ${secret}` };
    const get = await fetch(`${server.url}/mcp`, { headers: { ...auth, accept: "text/event-stream" } });
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    expect(await get.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32000 } });
    expect((await fetch(`${server.url}/mcp`, { method: "DELETE", headers: auth })).status).toBe(405);
    const crossSite = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: { ...auth, origin: "https://evil.example", "content-type": "application/json" },
      body: "{}",
    });
    expect(crossSite.status).toBe(403);
  });

  it("refuses bodies past the app's limit (413) and JSON nested past the depth limit (400)", async () => {
    const { secret } = await newKey();
    const post = (body: string) =>
      fetch(`${server.url}/mcp`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${secret}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body,
      });
    expect(
      (await post(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", pad: "x".repeat(1_100_000) })))
        .status,
    ).toBe(413);
    const deep = await post(`${"[".repeat(100)}${"]".repeat(100)}`);
    expect(deep.status).toBe(400);
    expect(await deep.json()).toMatchObject({ error: { code: ErrorCode.ParseError } });
  });
});
