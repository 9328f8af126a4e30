// The MCP client side below the routes: sessions through the address guard (pinned, allow-listed), both
// transports and the fallback between them, sealed headers, result mapping, list changes and cancellation.
import { eq } from "drizzle-orm";
import { v7 as uuidv7 } from "uuid";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type McpServerRow, mcpServer } from "@/db/schema";
import { createMcp, McpFailure, type McpServerConfig } from "@/features/mcp/server/client";
import { McpToolError, toolValue } from "@/features/mcp/server/client/results";
import { headerContext, SecretBox } from "@/features/mcp/server/client/secrets";
import { parseAllowList, type Resolver } from "@/lib/agent/toolsets/web/net-guard";
import { type FakeMcpServer, startFakeMcpServer } from "../fakes/mcp-server";
import { useSeededAppDatabase } from "../helpers/app-db";

const KEY = Buffer.alloc(32, 7).toString("base64");
const LOOPBACK = "127.0.0.0/8,::1/128";

describe("the MCP client", () => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let fake: FakeMcpServer;
  let tenantId: string;
  let userId: string;
  const opened: ReturnType<typeof createMcp>[] = [];

  beforeAll(async () => {
    app = await useSeededAppDatabase("pglite");
    fake = await startFakeMcpServer({
      requireHeader: { name: "authorization", value: "Bearer sk-test-1234567890abcdef" },
    });
    tenantId = await app.tenantId("acme");
    userId = await app.userId("admin@acme.test");
  });
  afterEach(async () => {
    for (const m of opened.splice(0)) await m.clients.close();
    fake.reset();
  });
  afterAll(async () => {
    await fake.close();
    await app.close();
  });

  const mcp = (
    env: Record<string, string> = { WEB_FETCH_ALLOW: LOOPBACK, MCP_SECRET_KEY: KEY },
    resolver?: Resolver,
  ) => {
    const made = createMcp({ db: async () => app.db, env, resolver });
    opened.push(made);
    return made;
  };
  const box = SecretBox.fromKeyText(KEY);
  const config = (over: Partial<McpServerConfig> = {}): McpServerConfig => {
    const id = over.id ?? uuidv7();
    return {
      id,
      tenantId,
      name: "helpdesk",
      url: fake.url,
      transport: "auto",
      timeoutMs: 5_000,
      headers: [
        {
          name: "Authorization",
          sealed: box.seal("Bearer sk-test-1234567890abcdef", headerContext(tenantId, id, "Authorization")),
        },
      ],
      ...over,
    };
  };
  const store = async (server: McpServerConfig): Promise<McpServerRow> => {
    const [row] = await app.db
      .insert(mcpServer)
      .values({ ...server, createdBy: userId })
      .returning();
    return row!;
  };

  it("lists the tools over Streamable HTTP with the opened header, and records the status", async () => {
    const { clients } = mcp();
    const server = await store(config({ name: "helpdesk-status" }));
    const listing = await clients.refresh(server);
    expect(listing.transport).toBe("streamable");
    expect(listing.tools.map((t) => t.name)).toContain("create_ticket");
    expect(fake.requests.every((r) => r.headers.authorization === "Bearer sk-test-1234567890abcdef")).toBe(
      true,
    );
    const [row] = await app.db.select().from(mcpServer).where(eqId(server.id));
    expect(row).toMatchObject({ lastError: null, connectedTransport: "streamable" });
    expect(row!.tools!.length).toBe(listing.tools.length);
    expect(row!.lastLatencyMs).toEqual(expect.any(Number));
  });

  it("falls back to HTTP+SSE when the server refuses the Streamable HTTP POST", async () => {
    const { clients } = mcp();
    const listing = await clients.list(config({ url: fake.sseUrl }));
    expect(listing.transport).toBe("sse");
    expect(fake.requests.map((r) => `${r.method} ${r.path.split("?")[0]}`)).toEqual(
      expect.arrayContaining(["POST /sse", "GET /sse", "POST /messages"]),
    );
    const only = await clients.list(config({ url: fake.sseUrl, transport: "sse" }));
    expect(only.transport).toBe("sse");
  });

  it("refuses a loopback address unless WEB_FETCH_ALLOW opens it, before any request is made", async () => {
    const { clients } = mcp({ MCP_SECRET_KEY: KEY });
    const refused = await clients.list(config()).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(McpFailure);
    expect(refused).toMatchObject({ stage: "connect", refused: true });
    expect((refused as Error).message).toMatch(/127\.0\.0\.1 is a loopback address/);
    const named = await clients
      .list(config({ url: `http://localhost:${fake.port}/mcp` }))
      .catch((e: unknown) => e);
    expect((named as Error).message).toMatch(/localhost resolves to .*loopback/);
    expect(fake.requests).toHaveLength(0);
  });

  it("resolves a host once per session and connects to that address, whatever DNS says later", async () => {
    const answers = ["127.0.0.1", "10.1.2.3"];
    let lookups = 0;
    const resolver: Resolver = async () => [{ address: answers[Math.min(lookups++, 1)]!, family: 4 }];
    const { clients } = mcp({ WEB_FETCH_ALLOW: "127.0.0.1/32", MCP_SECRET_KEY: KEY }, resolver);
    const server = config({ url: `http://mcp.example.test:${fake.port}/mcp` });
    await clients.list(server);
    await clients.call(server, "echo", { text: "hi" });
    expect(lookups).toBe(1);
    expect(fake.requests.at(-1)!.headers.host).toBe(`mcp.example.test:${fake.port}`);
    // A new session resolves again, and the rebound address is refused.
    clients.forget(server.id);
    await expect(clients.list(server)).rejects.toThrow(/resolves to 10\.1\.2\.3, which is a private address/);
  });

  it("names the server's answer when it refuses the headers", async () => {
    const { clients } = mcp();
    const error = await clients
      .list(config({ headers: [], transport: "streamable" }))
      .catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/HTTP 401/);
    const auto = await clients.list(config({ headers: [] })).catch((e: unknown) => e);
    expect((auto as Error).message).toMatch(/Streamable HTTP: HTTP 401.*HTTP\+SSE/);
  });

  it("refuses to open headers without MCP_SECRET_KEY, or sealed for another server", async () => {
    const { clients } = mcp({ WEB_FETCH_ALLOW: LOOPBACK });
    await expect(clients.list(config())).rejects.toThrow(/MCP_SECRET_KEY is not set/);
    const moved = { ...config(), id: uuidv7() };
    await expect(mcp().clients.list(moved)).rejects.toThrow(/cannot be opened/);
  });

  it("maps results: text joined, structured content kept, error results thrown", async () => {
    const { clients } = mcp();
    const server = config();
    expect(toolValue(await clients.call(server, "docs.search", { query: "setup" }))).toBe(
      '2 pages match "setup"\nguide/setup, api/tickets',
    );
    expect(
      toolValue(await clients.call(server, "create_ticket", { title: "Broken", customer: { name: "Ada" } })),
    ).toEqual({
      text: "ticket T-2 created for Ada",
      structuredContent: { id: "T-2", title: "Broken", customer: "Ada", itemCount: 0 },
    });
    expect(() => toolValue({ content: [], structuredContent: { a: 1 } })).not.toThrow();
    const failing = await clients.call(server, "failing_lookup", { id: "7" });
    expect(() => toolValue(failing)).toThrow(McpToolError);
    expect(() => toolValue(failing)).toThrow("lookup failed: no record 7");
    await expect(clients.call(server, "protocol_error", {})).rejects.toThrow(/the tool backend is down/);
    // One session served every call.
    expect(fake.methods().filter((m) => m === "initialize")).toHaveLength(1);
  });

  it("cancels a call on the server when its signal fires", async () => {
    const { clients } = mcp();
    const stop = new AbortController();
    const call = clients.call(config(), "slow_job", { seconds: 20 }, { signal: stop.signal });
    await fake.waitFor(() => fake.calls.some((c) => c.name === "slow_job"));
    stop.abort(new Error("stopped by the user"));
    await expect(call).rejects.toThrow(/stopped by the user/);
    await fake.waitFor(() => fake.cancelled.length === 1);
  });

  it("stores the new tool list when the server announces tools/list_changed", async () => {
    const { clients, source } = mcp();
    const server = await store(config({ name: "helpdesk" }));
    await clients.refresh(server);
    const before = await source.toolSets(tenantId);
    expect(before.flatMap((s) => s.tools().map((t) => t.name))).not.toContain("helpdesk__weather_report");
    await clients.call(server, "add_tool", {});
    await fake.waitFor(() => fake.methods().filter((m) => m === "tools/list").length >= 2);
    await expectEventually(async () => {
      const sets = await source.toolSets(tenantId);
      return sets.flatMap((s) => s.tools().map((t) => t.name)).includes("helpdesk__weather_report");
    });
  });

  it("opens a new session when the server forgot the old one, and sends the call again", async () => {
    const { clients } = mcp();
    const server = config();
    await clients.call(server, "echo", { text: "one" });
    // The server restarts its sessions: the next call gets 404 for its session id.
    expect(fake.sessions().streamable).toBe(1);
    await fake.dropSessions();
    const again = await clients.call(server, "echo", { text: "two" });
    expect(toolValue(again)).toBe("echo: two");
    expect(fake.calls.map((c) => c.arguments.text)).toEqual(["one", "two"]);
  });

  it("rejects an allow-list entry that is not a range", () => {
    expect(() => parseAllowList("127.0.0.1/33")).toThrow(/not an address range/);
  });
});

const eqId = (id: string) => eq(mcpServer.id, id);

async function expectEventually(check: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
