import "server-only";
import type { IncomingMessage } from "node:http";
import type { BlockList } from "node:net";
import { Readable, Transform, type TransformCallback } from "node:stream";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  BlockedAddressError,
  type ResolvedAddress,
  type Resolver,
  resolveAllowed,
} from "@/lib/agent/toolsets/web/net-guard";
import { contentDecoder, pinnedRequest } from "@/lib/agent/toolsets/web/pinned-client";
import { McpResponseTooLarge } from "./errors";

export type GuardOptions = {
  /** Ranges the operator opens despite the address policy (WEB_FETCH_ALLOW). */
  allow: BlockList;
  /** Host name resolution; tests inject one, production uses dns.lookup. */
  resolver?: Resolver;
  /**
   * Decoded bytes one response may carry (MCP_MAX_RESPONSE_BYTES); on a long-lived event stream (a GET), bytes
   * one event may carry. Past it the body is cut with McpResponseTooLarge.
   */
  maxResponseBytes: number;
  /** Told when a response passed the limit (the connection then fails its waiting requests with the error). */
  onTooLarge?: (error: McpResponseTooLarge) => void;
};

/** MCP_MAX_RESPONSE_BYTES when unset: 4 MB, far above any real tools/list or tool result. */
export const DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/** MCP_MAX_RESPONSE_BYTES: a whole number of bytes from 1 KB to 1 GB (unset: 4 MB). */
export function maxResponseBytesFromEnv(env: Record<string, string | undefined>): number {
  const raw = env.MCP_MAX_RESPONSE_BYTES;
  if (raw === undefined || raw.trim() === "") return DEFAULT_MAX_RESPONSE_BYTES;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1024 || n > 1024 ** 3)
    throw new Error(
      `MCP_MAX_RESPONSE_BYTES must be a whole number of bytes from 1024 to 1073741824 (got "${raw}")`,
    );
  return n;
}

const NO_BODY = new Set([204, 205, 304]);

/** The URL of an MCP server, or why it cannot be one (http(s), no credentials in it). */
export function mcpUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new BlockedAddressError(`"${text}" is not an absolute URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new BlockedAddressError(`only http and https MCP servers can be used, not ${url.protocol}`);
  if (url.username || url.password)
    throw new BlockedAddressError("put credentials in headers (stored sealed), not in the URL");
  return url;
}

/**
 * A `fetch` for the MCP SDK's transports (one per connection): every host is checked by web_fetch's address guard
 * once, and every request to it connects to exactly that checked address, so DNS cannot swap it mid-session
 * (rebinding). Redirects are returned, not followed (the SDK follows same-origin ones through this fetch again).
 */
export function guardedFetch(options: GuardOptions): FetchLike {
  const pinned = new Map<string, Promise<ResolvedAddress>>();
  const addressOf = (url: URL, signal: AbortSignal) => {
    let found = pinned.get(url.hostname);
    if (!found) {
      found = resolveAllowed(url.hostname, { allow: options.allow, resolver: options.resolver, signal });
      pinned.set(url.hostname, found);
      // A failed lookup is not remembered: the next request asks again.
      found.catch(() => pinned.delete(url.hostname));
    }
    return found;
  };
  return async (input, init = {}) => {
    const url = mcpUrl(String(input));
    const signal = init.signal ?? new AbortController().signal;
    const checked = await addressOf(url, signal);
    const method = (init.method ?? "GET").toUpperCase();
    let res: IncomingMessage;
    try {
      res = await pinnedRequest(url, checked, signal, {
        method,
        headers: Object.fromEntries(new Headers(init.headers).entries()),
        body: requestBody(init.body),
      });
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      throw new Error(
        `could not reach ${url.origin}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    const status = res.statusCode ?? 502;
    const headers = new Headers();
    for (const [name, value] of Object.entries(res.headers)) {
      if (value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
    }
    const eventStream =
      method === "GET" && /^text\/event-stream\b/i.test(String(res.headers["content-type"] ?? ""));
    const limit = new ByteLimit(options.maxResponseBytes, eventStream, () => {
      const error = new McpResponseTooLarge(url.origin, options.maxResponseBytes);
      options.onTooLarge?.(error);
      return error;
    });
    const body = decoded(res, headers);
    body.on("error", (error) => limit.destroy(error));
    const stream = body.pipe(limit);
    // Cut: stop reading (and decoding) at once.
    limit.once("error", () => {
      res.destroy();
      body.destroy();
    });
    const empty = NO_BODY.has(status) || method === "HEAD";
    if (empty) res.resume();
    return new Response(empty ? null : (Readable.toWeb(stream) as ReadableStream<Uint8Array>), {
      status,
      statusText: res.statusMessage ?? "",
      headers,
    });
  };
}

function requestBody(body: RequestInit["body"]): string | Uint8Array | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string" || body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  throw new Error("the MCP transport sent a body this fetch cannot send");
}

/** The body with its content coding undone (the headers then describe the decoded bytes). */
function decoded(res: IncomingMessage, headers: Headers): Readable {
  const decoder = contentDecoder(res);
  if (!decoder) return res;
  headers.delete("content-encoding");
  headers.delete("content-length");
  res.on("error", (error) => decoder.destroy(error));
  return res.pipe(decoder);
}

/**
 * Passes a body through while counting its (decoded) bytes; past `max` it fails with the error `tooLarge` makes.
 * On a long-lived event stream the count restarts at every event's end (a blank line), so a session that lives
 * for hours is not cut, but one event (or a stream with no event end) still is.
 */
class ByteLimit extends Transform {
  private count = 0;
  /** At the start of a line (the last byte ended one); `cr` when that byte was a CR (a CRLF's LF follows). */
  private lineStart = true;
  private cr = false;

  constructor(
    private readonly max: number,
    private readonly perEvent: boolean,
    private readonly tooLarge: () => Error,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    if (this.perEvent ? this.eventTooLarge(chunk) : this.bodyTooLarge(chunk)) done(this.tooLarge());
    else done(null, chunk);
  }

  private bodyTooLarge(chunk: Buffer): boolean {
    this.count += chunk.length;
    return this.count > this.max;
  }

  private eventTooLarge(chunk: Buffer): boolean {
    for (const byte of chunk) {
      if (++this.count > this.max) return true;
      if (byte === 0x0a && this.cr) {
        this.cr = false;
        continue;
      }
      this.cr = byte === 0x0d;
      if (byte === 0x0a || byte === 0x0d) {
        if (this.lineStart) this.count = 0;
        this.lineStart = true;
      } else this.lineStart = false;
    }
    return false;
  }
}
