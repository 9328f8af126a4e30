import "server-only";
import type { IncomingMessage } from "node:http";
import type { BlockList } from "node:net";
import { Readable } from "node:stream";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  BlockedAddressError,
  type ResolvedAddress,
  type Resolver,
  resolveAllowed,
} from "@/lib/agent/toolsets/web/net-guard";
import { contentDecoder, pinnedRequest } from "@/lib/agent/toolsets/web/pinned-client";

export type GuardOptions = {
  /** Ranges the operator opens despite the address policy (WEB_FETCH_ALLOW). */
  allow: BlockList;
  /** Host name resolution; tests inject one, production uses dns.lookup. */
  resolver?: Resolver;
};

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
    const stream = decoded(res, headers);
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
