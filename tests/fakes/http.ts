// Shared harness for the fake provider servers: a node:http server on 127.0.0.1 that records every
// request and answers from a reply queue. Provider files only turn a FakeReply into their wire format.
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export type FakeToolCall = { id?: string; name: string; args: Record<string, unknown> };
export type FakeUsage = {
  // provider-neutral knobs; each fake maps them to its own wire fields
  input?: number; // OpenAI: prompt_tokens = input + cached ; Anthropic: input_tokens = input
  cached?: number; // OpenAI: prompt_tokens_details.cached_tokens ; Anthropic: cache_read_input_tokens
  cacheWrite?: number; // Anthropic only: cache_creation_input_tokens (OpenAI ignores)
  output?: number; // OpenAI: completion_tokens ; Anthropic: output_tokens
  reasoning?: number; // OpenAI only: completion_tokens_details.reasoning_tokens (already included in output)
};
export type FakeReply =
  | {
      kind: "text";
      text: string;
      model?: string;
      usage?: FakeUsage;
      chunks?: string[];
      chunkDelayMs?: number;
      /** Wait this long before answering (to hold many calls in flight at once). */
      delayMs?: number;
    }
  | { kind: "tool_calls"; calls: FakeToolCall[]; text?: string; model?: string; usage?: FakeUsage }
  // `type` overrides the provider's error type derived from the status (e.g. "insufficient_quota").
  | {
      kind: "error";
      status: number;
      message?: string;
      headers?: Record<string, string>;
      type?: string;
      /** The error body's `code`, where the provider sends one (Azure OpenAI). */
      code?: string;
    }
  | { kind: "hang" } // read the request, never answer (until the client disconnects)
  | { kind: "hang_after_headers" } // send 200 + headers (and the stream's opening event), then nothing more
  // send some chunks, then destroy the socket (or, with ending: "stall", keep it open and send nothing more)
  | { kind: "cut"; text: string; afterChunks: number; model?: string; ending?: "destroy" | "stall" }
  | { kind: "drop" } // destroy the socket at once without any response
  | RawReply;

/**
 * Exact bytes on any route of any fake, for pass-through tests: `json` is sent as JSON.stringify gives it,
 * `sse` as text/event-stream events written one at a time (a string `data` as-is, e.g. "[DONE]"),
 * `body` verbatim. The status defaults to 200; `headers` replace the defaults.
 */
export type RawReply = {
  kind: "raw";
  status?: number;
  json?: unknown;
  sse?: Array<{ event?: string; data: unknown }>;
  /** Sent verbatim when there is neither `json` nor `sse` (content-type from `headers`, else none). */
  body?: string;
  headers?: Record<string, string>;
  /** Pause before each SSE event. */
  chunkDelayMs?: number;
};

export type RecordedRequest = {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>; // node lowercases header names
  body: Record<string, unknown>; // parsed JSON; {} when the body is empty or not a JSON object
  rawBody: string;
  /** The body's exact bytes (a multipart upload's files are not UTF-8). */
  rawBytes: Buffer;
};

export interface FakeProvider {
  url: string;
  requests: RecordedRequest[];
  /** Replies used one per request, in order; when the queue is empty the default reply is used. */
  enqueue(...replies: FakeReply[]): void;
  setDefault(reply: FakeReply): void; // initial default: { kind: "text", text: "ok" }
  reset(): void; // clears queue, requests, restores default
  close(): Promise<void>; // also closes hanging connections
}

/** The replies a provider renders itself; "hang", "drop" and "raw" are handled by the harness. */
export type RenderableReply = Exclude<FakeReply, { kind: "hang" } | { kind: "drop" } | { kind: "raw" }>;
export type Renderer = (reply: RenderableReply, req: RecordedRequest, res: ServerResponse) => Promise<void>;
/** Checks the request as the real API does; a message makes it a 400 with that message. */
export type Validator = (body: Record<string, unknown>) => string | null;
/** One POST path: its renderer, and optionally the real API's request check. */
export type FakeRoute = Renderer | { render: Renderer; validate?: Validator };

export type FakeServerOptions = {
  /** The provider's main POST path, e.g. "/v1/chat/completions"; served by `render` and `validate`. */
  route?: string;
  /** Appended to the origin to form `url`, e.g. "/v1". */
  urlSuffix?: string;
  /** Renders the main route, and the provider's 404 for paths no route serves. */
  render: Renderer;
  validate?: Validator;
  /** Further POST paths, each with its own renderer (which also renders its errors). */
  routes?: Record<string, FakeRoute>;
  /**
   * Checks a request to a route as the real service does before anything else (its key, its API version): a
   * refusal (an error reply) is rendered by the main renderer and uses no scripted reply.
   */
  authorize?: (req: RecordedRequest) => Extract<FakeReply, { kind: "error" }> | null;
  /** POST paths served apart from the routes (a token endpoint): not recorded, no scripted reply used. */
  services?: Record<string, (req: RecordedRequest, res: ServerResponse) => void>;
};

const DEFAULT_REPLY: FakeReply = { kind: "text", text: "ok" };

export async function startFakeServer(options: FakeServerOptions, listenPort = 0): Promise<FakeProvider> {
  const requests: RecordedRequest[] = [];
  const queue: FakeReply[] = [];
  let fallback: FakeReply = DEFAULT_REPLY;
  const routes = routeTable(options);
  // Tracked so close() can end hanging and keep-alive connections instead of waiting on them.
  const sockets = new Set<Socket>();

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      // A renderer bug must fail loudly in the test rather than leave the client hanging.
      console.error("fake provider failed to answer", error);
      res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rawBytes = await readBody(req);
    const rawBody = rawBytes.toString("utf8");
    const path = req.url ?? "/";
    // Other processes (the browser tests) script the fake through these; they are not recorded.
    if (req.method === "POST" && path === "/__control/enqueue") {
      const replies = parseObject(rawBody).replies;
      // A malformed script is the test's bug: say so instead of quietly queuing nothing.
      if (!Array.isArray(replies)) return sendJson(res, 400, { error: "send {replies: [...]}" });
      queue.push(...(replies as FakeReply[]));
      return sendJson(res, 200, { queued: queue.length });
    }
    if (req.method === "POST" && path === "/__control/reset") {
      queue.length = 0;
      requests.length = 0;
      fallback = DEFAULT_REPLY;
      return sendJson(res, 200, { reset: true });
    }
    // What the fake received, for tests in another process (the browser tests) to check what reached it.
    if (req.method === "GET" && path === "/__control/requests") return sendJson(res, 200, { requests });
    const recorded: RecordedRequest = {
      method: req.method ?? "GET",
      path,
      headers: { ...req.headers },
      body: parseObject(rawBody),
      rawBody,
      rawBytes,
    };
    const service = req.method === "POST" ? options.services?.[path.split("?")[0] ?? ""] : undefined;
    if (service) return service(recorded, res);
    requests.push(recorded);
    const route = req.method === "POST" ? routes.get(path.split("?")[0] ?? "") : undefined;
    if (!route) {
      // Unknown routes do not consume the queue; they get the provider's own 404 shape.
      const message = `Unknown request URL: ${req.method} ${path}`;
      return options.render({ kind: "error", status: 404, message }, recorded, res);
    }
    const refusal = options.authorize?.(recorded);
    if (refusal) return options.render(refusal, recorded, res);
    // Like the real APIs, a malformed request is refused before any reply is used.
    const problem = route.validate?.(recorded.body);
    if (problem) return route.render({ kind: "error", status: 400, message: problem }, recorded, res);
    const reply = queue.shift() ?? fallback;
    if (reply.kind === "hang") return;
    if (reply.kind === "drop") {
      req.socket.destroy();
      return;
    }
    if (reply.kind === "raw") return sendRaw(res, reply);
    await route.render(reply, recorded, res);
  }

  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(listenPort, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}${options.urlSuffix ?? ""}`,
    requests,
    enqueue: (...replies) => {
      queue.push(...replies);
    },
    setDefault: (reply) => {
      fallback = reply;
    },
    reset: () => {
      queue.length = 0;
      requests.length = 0;
      fallback = DEFAULT_REPLY;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        for (const socket of sockets) socket.destroy();
      }),
  };
}

function routeTable(options: FakeServerOptions): Map<string, { render: Renderer; validate?: Validator }> {
  const table = new Map<string, { render: Renderer; validate?: Validator }>();
  if (options.route) table.set(options.route, { render: options.render, validate: options.validate });
  for (const [path, route] of Object.entries(options.routes ?? {})) {
    table.set(path, typeof route === "function" ? { render: route } : route);
  }
  return table;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

function parseObject(raw: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(raw);
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/** Writes a complete JSON response. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** Sends a "raw" reply: exactly the bytes the test scripted, each SSE event in its own write. */
export async function sendRaw(res: ServerResponse, reply: RawReply): Promise<void> {
  const status = reply.status ?? 200;
  if (reply.sse) {
    res.writeHead(status, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      connection: "keep-alive",
      ...reply.headers,
    });
    res.flushHeaders();
    for (const { event, data } of reply.sse) {
      if (res.destroyed) return;
      if (reply.chunkDelayMs) await sleep(reply.chunkDelayMs);
      await write(res, sseEvent(data, event));
    }
    if (!res.destroyed) res.end();
    return;
  }
  if (reply.json !== undefined) return sendJson(res, status, reply.json, reply.headers);
  const body = reply.body ?? "";
  res.writeHead(status, { "content-length": Buffer.byteLength(body), ...reply.headers });
  res.end(body);
}

/** One SSE event's bytes; `data` is JSON-encoded unless it is a string. */
export function sseEvent(data: unknown, event?: string): string {
  const payload = typeof data === "string" ? data : JSON.stringify(data);
  return `${event ? `event: ${event}\n` : ""}data: ${payload}\n\n`;
}

/** Sends 200 + JSON headers, then the first half of the body, then kills the socket (a non-stream "cut"). */
export async function sendTruncatedJson(
  res: ServerResponse,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<void> {
  const text = JSON.stringify(body);
  res.writeHead(200, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  await write(res, text.slice(0, Math.floor(text.length / 2)));
  res.socket?.destroy();
}

/** Sends 200 + headers with no body bytes yet (a non-stream "hang_after_headers"). */
export function sendHeadersOnly(res: ServerResponse, headers: Record<string, string>): void {
  res.writeHead(200, headers);
  res.flushHeaders();
}

export type SseWriter = {
  /** Sends one event; `data` is JSON-encoded unless it is a string. Resolves once flushed to the socket. */
  send(data: unknown, event?: string): Promise<void>;
  /** Ends the response normally. */
  end(): void;
  /** Destroys the socket without any terminating event or chunk. */
  cut(): void;
  /** True once the client has gone away (stop producing events). */
  readonly closed: boolean;
};

export function openSse(res: ServerResponse, headers: Record<string, string> = {}): SseWriter {
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    connection: "keep-alive",
    ...headers,
  });
  res.flushHeaders();
  return {
    send: (data, event) => write(res, sseEvent(data, event)),
    end: () => {
      if (!res.destroyed) res.end();
    },
    cut: () => {
      res.socket?.destroy();
    },
    get closed() {
      return res.destroyed;
    },
  };
}

// Waiting for the write callback makes sure bytes reach the socket before a later destroy() drops them.
function write(res: ServerResponse, text: string): Promise<void> {
  if (res.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    // The write callback may never fire if the client disconnects mid-write; "close" covers that.
    const done = () => {
      res.off("close", done);
      resolve();
    };
    res.once("close", done);
    res.write(text, done);
  });
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const ALPHANUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** A provider-looking id: prefix + random alphanumerics. */
export function fakeId(prefix: string, length = 24): string {
  const bytes = randomBytes(length);
  let out = prefix;
  for (const byte of bytes) out += ALPHANUM[byte % ALPHANUM.length];
  return out;
}

/** Splits text into word pieces, each carrying its leading whitespace (like tokenizer output). */
export function splitWords(text: string): string[] {
  return text.match(/\s*\S+|\s+$/g) ?? [];
}

/** Splits a string into `parts` pieces (at least two when it has two characters or more). */
export function splitPieces(text: string, parts = 3): string[] {
  const size = Math.max(1, Math.ceil(text.length / parts));
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces;
}

/** The text pieces a text/cut reply streams. */
export function textPieces(reply: { text: string; chunks?: string[] }): string[] {
  return reply.chunks ?? splitWords(reply.text);
}

export type ResolvedUsage = Required<FakeUsage>;

export function resolveUsage(usage: FakeUsage | undefined, defaultOutput: number): ResolvedUsage {
  return {
    input: usage?.input ?? 11,
    cached: usage?.cached ?? 0,
    cacheWrite: usage?.cacheWrite ?? 0,
    output: usage?.output ?? defaultOutput,
    reasoning: usage?.reasoning ?? 0,
  };
}

/** Default output tokens: one per streamed piece, or 5 when there are none. */
export function defaultOutputTokens(reply: RenderableReply): number {
  if (reply.kind === "text") return textPieces(reply).length || 5;
  return 5;
}

export const isStreamRequest = (req: RecordedRequest): boolean => req.body.stream === true;
