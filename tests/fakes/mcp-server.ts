// A real MCP server for the tests, built with the official SDK (McpServer): Streamable HTTP at /mcp and the older
// HTTP+SSE transport at /sse (+ /messages), on 127.0.0.1 with a random port. It records every HTTP request and
// JSON-RPC message it receives (headers included), and offers tools that exercise a client: nested object and
// array schemas, a dotted name, a slow tool that honours cancellation, tools that fail three ways, and one that
// changes the tool list (notifications/tools/list_changed to every open session). `bomb()` makes it answer one
// JSON-RPC method with a gzip bomb (tens of MB on the wire, gigabytes decoded), streamed as it is sent.
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { gzipSync } from "node:zlib";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

export type McpTransportKind = "streamable" | "sse";

/** One HTTP request as it reached the server (node lowercases header names). */
export type McpRecordedRequest = {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body (a JSON-RPC message or batch), undefined for GET/DELETE or a body that is not JSON. */
  body: unknown;
  transport: McpTransportKind;
};

/** One tools/call the server ran (after the SDK validated the arguments). */
export type McpRecordedCall = {
  name: string;
  arguments: Record<string, unknown>;
  transport: McpTransportKind;
  /** The HTTP headers of the request that carried the call. */
  headers: Record<string, string | string[] | undefined>;
};

export type FakeMcpOptions = {
  port?: number;
  /** Serve Streamable HTTP at /mcp (default true); false makes every /mcp request a 404, like an old server. */
  streamable?: boolean;
  /** Serve HTTP+SSE at /sse and /messages (default true). */
  sse?: boolean;
  /** Answer 401 unless this header has this value (to prove the client sends the registered headers). */
  requireHeader?: { name: string; value: string };
  /** The slow tool's default wait when its `seconds` argument is not given. */
  slowSeconds?: number;
};

/** A gzip bomb answering one JSON-RPC method over Streamable HTTP: as a JSON body or as an SSE stream. */
export type McpBomb = {
  method: "tools/list" | "tools/call";
  as: "json" | "sse";
  /**
   * Decoded bytes it would expand to if read to the end (default 64 GB: 64 MB on the wire, more than loopback socket
   * buffers hold, so a client that stops reading is always seen hanging up before the bomb's end).
   */
  decodedBytes?: number;
};

export type FakeMcpServer = {
  /** The Streamable HTTP endpoint (POST, GET and DELETE). */
  url: string;
  /** The HTTP+SSE endpoint: GET opens the stream, whose `endpoint` event names /messages?sessionId=…; POST is 405. */
  sseUrl: string;
  /** http://127.0.0.1:<port> */
  origin: string;
  port: number;
  requests: McpRecordedRequest[];
  calls: McpRecordedCall[];
  /** The slow tool's calls whose request signal fired (the client sent notifications/cancelled), with the reason. */
  cancelled: { name: string; reason: string }[];
  /** JSON-RPC methods received in order ("initialize", "tools/list", "tools/call", "notifications/cancelled"…). */
  methods(): string[];
  /** The tool names offered right now. */
  toolNames(): string[];
  /** Adds a tool (default `weather_report`) to the catalog and tells every open session its tool list changed. */
  addTool(name?: string): void;
  /** Removes a tool from the catalog and tells every open session. */
  removeTool(name: string): void;
  /** Forgets every session, as a restarted server would (their next request gets 404). */
  dropSessions(): Promise<void>;
  /** Answers `method` with a gzip bomb from now on (null: answer normally again). */
  bomb(spec: McpBomb | null): void;
  /** Compressed bytes the bombs wrote, and how many bombs were cut off by the client hanging up. */
  bombed: { sentBytes: number; hungUp: number };
  /** Open sessions, by transport. */
  sessions(): { streamable: number; sse: number };
  /** Resolves once `check` holds (polled), or rejects after `timeoutMs`. */
  waitFor(check: () => boolean, timeoutMs?: number): Promise<void>;
  /** Clears what was recorded and restores the catalog (open sessions get list_changed if it changed). */
  reset(): void;
  /** Closes every session and the server. */
  close(): Promise<void>;
};

type Registered = ReturnType<McpServer["registerTool"]>;
type Catalog = Map<string, (server: McpServer) => Registered>;

const EXTRA_TOOL = "weather_report";

/** The tools every session starts with, by name; each registers itself on one session's McpServer. */
function baseCatalog(state: ServerState): Catalog {
  const catalog: Catalog = new Map();
  catalog.set("create_ticket", (server) =>
    server.registerTool(
      "create_ticket",
      {
        title: "Create ticket",
        description: "Create a support ticket for a customer, with line items and tags.",
        inputSchema: {
          title: z.string().min(1).describe("A one-line summary"),
          customer: z
            .object({
              name: z.string().min(1),
              email: z.string().email().optional(),
              tier: z.enum(["free", "pro", "enterprise"]).default("free"),
            })
            .describe("Who the ticket is for"),
          items: z
            .array(z.object({ sku: z.string(), quantity: z.number().int().min(1) }))
            .optional()
            .describe("Products the ticket is about"),
          tags: z.array(z.string()).optional(),
        },
        outputSchema: {
          id: z.string(),
          title: z.string(),
          customer: z.string(),
          itemCount: z.number(),
        },
      },
      async (args, extra) => {
        state.record("create_ticket", args, extra);
        const ticket = {
          id: `T-${state.calls.length}`,
          title: args.title,
          customer: args.customer.name,
          itemCount: args.items?.length ?? 0,
        };
        return {
          content: [{ type: "text", text: `ticket ${ticket.id} created for ${ticket.customer}` }],
          structuredContent: ticket,
        };
      },
    ),
  );
  catalog.set("echo", (server) =>
    server.registerTool(
      "echo",
      {
        description: "Echo the given text back, word for word.",
        inputSchema: { text: z.string().describe("What to echo") },
      },
      async (args, extra) => {
        state.record("echo", args, extra);
        return { content: [{ type: "text", text: `echo: ${args.text}` }] };
      },
    ),
  );
  catalog.set("docs.search", (server) =>
    server.registerTool(
      "docs.search",
      {
        description: "Search the product documentation.",
        inputSchema: {
          query: z.string(),
          filters: z
            .object({ since: z.string().optional(), kinds: z.array(z.enum(["guide", "api"])).optional() })
            .optional(),
        },
      },
      async (args, extra) => {
        state.record("docs.search", args, extra);
        return {
          content: [
            { type: "text", text: `2 pages match "${args.query}"` },
            { type: "text", text: "guide/setup, api/tickets" },
          ],
        };
      },
    ),
  );
  catalog.set("slow_job", (server) =>
    server.registerTool(
      "slow_job",
      {
        description: "Run a slow job that takes a while (seconds) unless it is cancelled.",
        inputSchema: { seconds: z.number().min(0).optional() },
      },
      async (args, extra) => {
        state.record("slow_job", args, extra);
        const ms = (args.seconds ?? state.slowSeconds) * 1000;
        const finished = await new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(true), ms);
          const onAbort = () => {
            clearTimeout(timer);
            const reason = extra.signal.reason;
            state.cancelled.push({
              name: "slow_job",
              reason: reason instanceof Error ? reason.message : String(reason),
            });
            resolve(false);
          };
          if (extra.signal.aborted) onAbort();
          else extra.signal.addEventListener("abort", onAbort, { once: true });
        });
        return { content: [{ type: "text", text: finished ? "slow job done" : "slow job cancelled" }] };
      },
    ),
  );
  catalog.set("failing_lookup", (server) =>
    server.registerTool(
      "failing_lookup",
      {
        description: "Look up a record that does not exist (answers an error result).",
        inputSchema: { id: z.string() },
      },
      async (args, extra): Promise<CallToolResult> => {
        state.record("failing_lookup", args, extra);
        return { content: [{ type: "text", text: `lookup failed: no record ${args.id}` }], isError: true };
      },
    ),
  );
  catalog.set("crash", (server) =>
    server.registerTool(
      "crash",
      { description: "A tool whose handler throws (the SDK answers it as an error result)." },
      async (extra) => {
        state.record("crash", {}, extra);
        throw new Error("the crash tool blew up");
      },
    ),
  );
  // Calls to this one never reach its handler: the HTTP layer answers them with a JSON-RPC error.
  catalog.set("protocol_error", (server) =>
    server.registerTool(
      "protocol_error",
      { description: "A tool whose call is answered with a JSON-RPC error (no result at all)." },
      async () => ({ content: [{ type: "text", text: "unreachable" }] }),
    ),
  );
  catalog.set("add_tool", (server) =>
    server.registerTool(
      "add_tool",
      {
        description: `Add the ${EXTRA_TOOL} tool to this server's tool list (it announces tools/list_changed).`,
      },
      async (extra) => {
        state.record("add_tool", {}, extra);
        state.addTool(EXTRA_TOOL);
        return { content: [{ type: "text", text: `${EXTRA_TOOL} added` }] };
      },
    ),
  );
  return catalog;
}

/** Tools that only appear when added. */
function extraTool(state: ServerState, name: string): (server: McpServer) => Registered {
  return (server) =>
    server.registerTool(
      name,
      {
        description: "Report the weather for a city.",
        inputSchema: { city: z.string(), days: z.number().int().min(1).max(7).optional() },
      },
      async (args, extra) => {
        state.record(name, args, extra);
        return { content: [{ type: "text", text: `sunny in ${args.city}` }] };
      },
    );
}

type Session = {
  server: McpServer;
  kind: McpTransportKind;
  tools: Map<string, Registered>;
  transport: StreamableHTTPServerTransport | SSEServerTransport;
};

type ToolExtra = {
  signal: AbortSignal;
  requestInfo?: { headers: Record<string, string | string[] | undefined> };
  sessionId?: string;
};

class ServerState {
  readonly requests: McpRecordedRequest[] = [];
  readonly calls: McpRecordedCall[] = [];
  readonly cancelled: { name: string; reason: string }[] = [];
  readonly sessions = new Map<string, Session>();
  catalog: Catalog = new Map();
  bomb: McpBomb | null = null;
  readonly bombed = { sentBytes: 0, hungUp: 0 };
  constructor(readonly slowSeconds: number) {}

  record(name: string, args: Record<string, unknown>, extra: ToolExtra): void {
    const session = extra.sessionId ? this.sessions.get(extra.sessionId) : undefined;
    this.calls.push({
      name,
      arguments: args,
      transport: session?.kind ?? "streamable",
      headers: extra.requestInfo?.headers ?? {},
    });
  }

  /** A session's server with every tool of the catalog registered (before connect, so capabilities are fixed). */
  newServer(): { server: McpServer; tools: Map<string, Registered> } {
    const server = new McpServer(
      { name: "tollgate-test-mcp", version: "1.0.0" },
      { capabilities: { tools: { listChanged: true } } },
    );
    const tools = new Map<string, Registered>();
    for (const [name, register] of this.catalog) tools.set(name, register(server));
    return { server, tools };
  }

  addTool(name: string): void {
    if (this.catalog.has(name)) return;
    const register = extraTool(this, name);
    this.catalog.set(name, register);
    // registerTool on a connected server sends notifications/tools/list_changed itself.
    for (const session of this.sessions.values()) session.tools.set(name, register(session.server));
  }

  removeTool(name: string): void {
    if (!this.catalog.delete(name)) return;
    for (const session of this.sessions.values()) {
      session.tools.get(name)?.remove();
      session.tools.delete(name);
    }
  }
}

export async function startFakeMcpServer(options: FakeMcpOptions = {}): Promise<FakeMcpServer> {
  const state = new ServerState(options.slowSeconds ?? 30);
  const initialCatalog = () => baseCatalog(state);
  state.catalog = initialCatalog();
  const sockets = new Set<Socket>();
  const streamableOn = options.streamable !== false;
  const sseOn = options.sse !== false;

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      console.error("fake MCP server failed to answer", error);
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const raw = req.method === "POST" ? await readBody(req) : "";
    const body = parseJson(raw);
    const kind: McpTransportKind = url.pathname === "/mcp" ? "streamable" : "sse";
    state.requests.push({
      method: req.method ?? "GET",
      path: `${url.pathname}${url.search}`,
      headers: { ...req.headers },
      body,
      transport: kind,
    });
    const required = options.requireHeader;
    if (required && req.headers[required.name.toLowerCase()] !== required.value) {
      res.writeHead(401, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: "unauthorized: a valid credential is required" }));
      return;
    }
    if (url.pathname === "/mcp" && streamableOn) return streamable(req, res, body);
    if (url.pathname === "/sse" && sseOn) {
      if (req.method !== "GET") {
        res.writeHead(405, { allow: "GET" }).end();
        return;
      }
      return openSse(res);
    }
    if (url.pathname === "/messages" && sseOn && req.method === "POST") {
      const id = url.searchParams.get("sessionId") ?? "";
      const session = state.sessions.get(id);
      if (!session || !(session.transport instanceof SSEServerTransport)) {
        res.writeHead(404).end("unknown session");
        return;
      }
      const refused = protocolErrorFor(body);
      if (refused) {
        await session.transport.send(refused);
        res.writeHead(202).end("Accepted");
        return;
      }
      return session.transport.handlePostMessage(req, res, body);
    }
    res.writeHead(404, { "content-type": "text/plain" }).end("not found");
  }

  async function streamable(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const sessionId = header(req, "mcp-session-id");
    if (sessionId) {
      const session = state.sessions.get(sessionId);
      if (!session || !(session.transport instanceof StreamableHTTPServerTransport)) {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(
          JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }),
        );
        return;
      }
      const bomb = state.bomb;
      if (req.method === "POST" && bomb && rpcMethods(body).includes(bomb.method))
        return sendBomb(res, sessionId, bomb, state.bombed);
      const refused = req.method === "POST" ? protocolErrorFor(body) : null;
      if (refused) {
        res.writeHead(200, { "content-type": "application/json", "mcp-session-id": sessionId });
        res.end(JSON.stringify(refused));
        return;
      }
      return session.transport.handleRequest(req, res, body);
    }
    if (req.method !== "POST" || !isInitialize(body)) {
      res.writeHead(400, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          jsonrpc: "2.0",
          error: { code: -32000, message: "Bad Request: no valid session ID provided" },
          id: null,
        }),
      );
      return;
    }
    const { server: mcp, tools } = state.newServer();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        state.sessions.set(id, { server: mcp, kind: "streamable", transport, tools });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) state.sessions.delete(transport.sessionId);
    };
    await mcp.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  async function openSse(res: ServerResponse): Promise<void> {
    const { server: mcp, tools } = state.newServer();
    const transport = new SSEServerTransport("/messages", res);
    state.sessions.set(transport.sessionId, { server: mcp, kind: "sse", transport, tools });
    res.on("close", () => state.sessions.delete(transport.sessionId));
    await mcp.connect(transport);
  }

  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;

  return {
    url: `${origin}/mcp`,
    sseUrl: `${origin}/sse`,
    origin,
    port,
    requests: state.requests,
    calls: state.calls,
    cancelled: state.cancelled,
    methods: () => state.requests.flatMap((r) => rpcMethods(r.body)),
    toolNames: () => [...state.catalog.keys()],
    addTool: (name = EXTRA_TOOL) => state.addTool(name),
    removeTool: (name) => state.removeTool(name),
    dropSessions: async () => {
      const all = [...state.sessions.values()];
      state.sessions.clear();
      for (const session of all) await session.server.close().catch(() => {});
    },
    bomb: (spec) => {
      state.bomb = spec;
    },
    bombed: state.bombed,
    sessions: () => {
      const all = [...state.sessions.values()];
      return {
        streamable: all.filter((s) => s.kind === "streamable").length,
        sse: all.filter((s) => s.kind === "sse").length,
      };
    },
    waitFor: async (check, timeoutMs = 5_000) => {
      const deadline = Date.now() + timeoutMs;
      while (!check()) {
        if (Date.now() > deadline)
          throw new Error(`fake MCP server: condition not met within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    reset: () => {
      state.requests.length = 0;
      state.calls.length = 0;
      state.cancelled.length = 0;
      state.bomb = null;
      state.bombed.sentBytes = 0;
      state.bombed.hungUp = 0;
      const wanted = initialCatalog();
      for (const name of [...state.catalog.keys()]) if (!wanted.has(name)) state.removeTool(name);
    },
    close: async () => {
      for (const session of state.sessions.values()) await session.server.close().catch(() => {});
      state.sessions.clear();
      await new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        for (const socket of sockets) socket.destroy();
      });
    },
  };
}

/** 16 MB of spaces, gzipped once (about 16 KB): gzip members concatenate, so the bomb repeats it. */
const BOMB_PIECE_BYTES = 16 * 1024 * 1024;
let bombPiece: Buffer | null = null;

/**
 * The start of a valid answer, then spaces that never end it (one endless JSON value, or one SSE line with no end),
 * gzipped; written as the client reads it (backpressure), stopped when it hangs up.
 */
async function sendBomb(
  res: ServerResponse,
  sessionId: string,
  bomb: McpBomb,
  bombed: { sentBytes: number; hungUp: number },
): Promise<void> {
  bombPiece ??= gzipSync(Buffer.alloc(BOMB_PIECE_BYTES, " "));
  const start =
    bomb.as === "sse"
      ? 'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{"tools":['
      : '{"jsonrpc":"2.0","id":1,"result":{"tools":[';
  res.writeHead(200, {
    "content-type": bomb.as === "sse" ? "text/event-stream" : "application/json",
    "content-encoding": "gzip",
    "mcp-session-id": sessionId,
  });
  let closed = false;
  res.on("close", () => {
    closed = true;
  });
  const write = (chunk: Buffer) =>
    new Promise<void>((resolve) => {
      bombed.sentBytes += chunk.length;
      if (res.write(chunk)) return resolve();
      const done = () => {
        res.off("drain", done);
        res.off("close", done);
        resolve();
      };
      res.on("drain", done);
      res.on("close", done);
    });
  await write(gzipSync(start));
  const pieces = Math.ceil((bomb.decodedBytes ?? 64 * 1024 ** 3) / BOMB_PIECE_BYTES);
  for (let i = 0; i < pieces && !closed; i++) await write(bombPiece);
  if (closed) bombed.hungUp++;
  else res.end();
}

/** A JSON-RPC error answering a tools/call of `protocol_error` (as a server that fails before any result would). */
function protocolErrorFor(
  body: unknown,
): { jsonrpc: "2.0"; id: string | number; error: { code: number; message: string } } | null {
  if (!isRecord(body) || body.method !== "tools/call") return null;
  const params = isRecord(body.params) ? body.params : {};
  if (params.name !== "protocol_error") return null;
  const id = typeof body.id === "string" || typeof body.id === "number" ? body.id : 0;
  return { jsonrpc: "2.0", id, error: { code: -32603, message: "internal error: the tool backend is down" } };
}

function isInitialize(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((m) => isRecord(m) && m.method === "initialize");
}

function rpcMethods(body: unknown): string[] {
  const messages = Array.isArray(body) ? body : body === undefined ? [] : [body];
  return messages.flatMap((m) => (isRecord(m) && typeof m.method === "string" ? [m.method] : []));
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts).toString("utf8");
}

function parseJson(raw: string): unknown {
  if (!raw) return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
