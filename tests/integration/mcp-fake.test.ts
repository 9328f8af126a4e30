// The test MCP server speaks the real protocol: the official SDK's client lists and calls its tools over both
// transports, sees its list change, and cancels its slow tool.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type FakeMcpServer, startFakeMcpServer } from "../fakes/mcp-server";

describe("the test MCP server", () => {
  let fake: FakeMcpServer;
  const clients: Client[] = [];
  beforeAll(async () => {
    fake = await startFakeMcpServer({ requireHeader: { name: "x-test-token", value: "t0k3n" } });
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.close();
    fake.reset();
  });
  afterAll(async () => {
    await fake.close();
  });

  const headers = { "x-test-token": "t0k3n" };
  async function connect(kind: "streamable" | "sse", onToolsChanged?: (tools: Tool[] | null) => void) {
    const client = new Client(
      { name: "test", version: "1.0.0" },
      onToolsChanged
        ? { listChanged: { tools: { debounceMs: 0, onChanged: (_e, t) => onToolsChanged(t) } } }
        : {},
    );
    const transport =
      kind === "streamable"
        ? new StreamableHTTPClientTransport(new URL(fake.url), { requestInit: { headers } })
        : new SSEClientTransport(new URL(fake.sseUrl), { requestInit: { headers }, eventSourceInit: {} });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  it.each(["streamable", "sse"] as const)("lists nested schemas and calls tools over %s", async (kind) => {
    const client = await connect(kind);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      "create_ticket",
      "echo",
      "docs.search",
      "slow_job",
      "failing_lookup",
      "crash",
      "protocol_error",
      "add_tool",
    ]);
    const ticket = tools.find((t) => t.name === "create_ticket")!;
    expect(ticket.inputSchema).toMatchObject({
      type: "object",
      properties: {
        customer: { type: "object", properties: { tier: { enum: ["free", "pro", "enterprise"] } } },
        items: { type: "array", items: { type: "object" } },
      },
      required: ["title", "customer"],
    });
    const created = await client.callTool({
      name: "create_ticket",
      arguments: {
        title: "Printer on fire",
        customer: { name: "Ada" },
        items: [{ sku: "P-1", quantity: 2 }],
      },
    });
    expect(created.structuredContent).toEqual({
      id: "T-1",
      title: "Printer on fire",
      customer: "Ada",
      itemCount: 1,
    });
    expect(fake.calls[0]).toMatchObject({ name: "create_ticket", transport: kind });
    expect(fake.calls[0]!.headers["x-test-token"]).toBe("t0k3n");

    expect(await client.callTool({ name: "failing_lookup", arguments: { id: "9" } })).toMatchObject({
      isError: true,
      content: [{ type: "text", text: "lookup failed: no record 9" }],
    });
    expect(await client.callTool({ name: "crash", arguments: {} })).toMatchObject({
      isError: true,
      content: [{ type: "text", text: expect.stringContaining("the crash tool blew up") }],
    });
    await expect(client.callTool({ name: "protocol_error", arguments: {} })).rejects.toThrow(
      /the tool backend is down/,
    );
  });

  it.each(["streamable", "sse"] as const)("announces a changed tool list over %s", async (kind) => {
    const changes: (Tool[] | null)[] = [];
    const client = await connect(kind, (tools) => changes.push(tools));
    await client.callTool({ name: "add_tool", arguments: {} });
    await fake.waitFor(() => changes.length > 0);
    expect(changes[0]!.map((t) => t.name)).toContain("weather_report");
    fake.removeTool("weather_report");
    await fake.waitFor(() => changes.length > 1);
    expect(changes[1]!.map((t) => t.name)).not.toContain("weather_report");
  });

  it("sees a cancelled call of the slow tool", async () => {
    const client = await connect("streamable");
    const stop = new AbortController();
    const call = client.callTool({ name: "slow_job", arguments: { seconds: 20 } }, undefined, {
      signal: stop.signal,
    });
    await fake.waitFor(() => fake.calls.some((c) => c.name === "slow_job"));
    stop.abort(new Error("user pressed Stop"));
    await expect(call).rejects.toThrow();
    await fake.waitFor(() => fake.cancelled.length === 1);
    expect(fake.methods()).toContain("notifications/cancelled");
    expect(fake.cancelled[0]!.reason).toMatch(/Stop/);
  });

  it("refuses a client without the required header, and POST on the SSE path", async () => {
    const client = new Client({ name: "test", version: "1.0.0" });
    await expect(client.connect(new StreamableHTTPClientTransport(new URL(fake.url)))).rejects.toThrow();
    const res = await fetch(fake.sseUrl, { method: "POST", headers, body: "{}" });
    expect(res.status).toBe(405);
  });
});
