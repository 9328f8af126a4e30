import http, { type IncomingHttpHeaders } from "node:http";
import https from "node:https";
import { Readable } from "node:stream";
import zlib from "node:zlib";
import { GatewayError } from "../errors";
import { proxyRoute } from "./proxy";

// Kept-alive connections to each provider, as Node's fetch keeps them.
const agents = {
  "http:": new http.Agent({ keepAlive: true, maxSockets: 256 }),
  "https:": new https.Agent({ keepAlive: true, maxSockets: 256 }),
};

/**
 * The most a whole (not streamed) answer may hold once decompressed: a bound on what one call can make the process
 * hold, far above real answers (2,048 embeddings of 3,072 dimensions: 33 MB as base64, about 125 MB as JSON numbers).
 */
export let MAX_WHOLE_BODY_BYTES = 128 * 2 ** 20;

/** Tests lower the bound to prove it (and put it back). */
export function setMaxWholeBodyBytes(bytes: number): void {
  MAX_WHOLE_BODY_BYTES = bytes;
}

const abortReason = (signal: AbortSignal): unknown =>
  signal.reason ?? new DOMException("This operation was aborted", "AbortError");

/** A provider's answer as node:http gives it: a JSON (or other) body read whole, or an event stream as it comes. */
export type NodeReply = {
  status: number;
  statusText: string;
  /** Lower-case names; content-encoding and content-length are gone when the body was decompressed. */
  headers: IncomingHttpHeaders;
} & ({ kind: "whole"; body: Buffer } | { kind: "stream"; body: Readable });

/** A request body sent as a stream of known length (an upload's files): opened once per exchange. */
export type StreamedBody = { length: number; open: () => Readable };

export type NodeRequestInit = {
  method?: string;
  headers: Record<string, string>;
  body?: string | Uint8Array | StreamedBody;
  signal?: AbortSignal;
};

/**
 * One HTTP exchange over node:http on kept-alive connections, with no Web `Request`/`Response`/`Headers` in
 * between: the gateway's own transport (the SDKs' goes through `nodeFetch`, below). An event stream stays a
 * stream (its socket is destroyed when `signal` aborts); anything else is read whole. `onHeaders` runs when
 * the provider starts answering (the connect timer stops there). Aborting rejects with the signal's reason, as
 * fetch does; a connection failure is a TypeError with the cause, as fetch's is.
 */
export function nodeRequest(
  input: string | URL,
  init: NodeRequestInit,
  onHeaders?: () => void,
): Promise<NodeReply> {
  const url = typeof input === "string" ? parsed(input) : input;
  const { signal, method = "GET" } = init;
  return new Promise<NodeReply>((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal));
    const headers = init.headers;
    headers["accept-encoding"] ??= "gzip, deflate, br";
    // A known length: the request goes out in one write, not as chunks (header, body, terminator).
    const body = init.body;
    const streamed = body !== undefined && typeof body !== "string" && !(body instanceof Uint8Array);
    if (body !== undefined)
      headers["content-length"] = String(streamed ? body.length : Buffer.byteLength(body));
    const agent = agents[url.protocol as keyof typeof agents];
    if (!agent) return reject(new TypeError(`fetch failed: unsupported protocol ${url.protocol}`));
    let settled = false;
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      reject(signal?.aborted ? abortReason(signal) : new TypeError("fetch failed", { cause: error }));
    };
    const onResponse = (res: http.IncomingMessage) => {
      onHeaders?.();
      const responseHeaders = res.headers;
      let stream: Readable = res;
      const encoding = responseHeaders["content-encoding"];
      if (encoding === "gzip" || encoding === "deflate" || encoding === "br") {
        stream = res.pipe(encoding === "br" ? zlib.createBrotliDecompress() : zlib.createUnzip());
        res.on("error", (error) => stream.destroy(error));
        delete responseHeaders["content-encoding"];
        delete responseHeaders["content-length"];
      }
      const status = res.statusCode ?? 502;
      const statusText = res.statusMessage ?? "";
      // Built field by field: spreading a shared `meta` into each costs microseconds a call on V8.
      if (status === 204 || status === 304 || method === "HEAD") {
        res.resume();
        settled = true;
        return resolve({
          status,
          statusText,
          headers: responseHeaders,
          kind: "whole",
          body: Buffer.alloc(0),
        });
      }
      const type = responseHeaders["content-type"];
      // Server-sent events, or AWS's binary event stream (Bedrock's ConverseStream): read as they come.
      if (type?.includes("text/event-stream") || type?.includes("application/vnd.amazon.eventstream")) {
        if (signal) {
          const stop = () => stream.destroy(abortReason(signal) as Error);
          signal.addEventListener("abort", stop, { once: true });
          stream.on("close", () => signal.removeEventListener("abort", stop));
        }
        settled = true;
        return resolve({ status, statusText, headers: responseHeaders, kind: "stream", body: stream });
      }
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on("data", (chunk: Buffer) => {
        size += chunk.length;
        // A whole answer (decompressed) past the bound is refused, not held: no provider answer is that big.
        if (size > MAX_WHOLE_BODY_BYTES) {
          settled = true;
          stream.destroy();
          req.destroy();
          return reject(
            new GatewayError(
              "server",
              `the provider's answer is larger than ${MAX_WHOLE_BODY_BYTES / 2 ** 20} MiB: refused`,
              502,
            ),
          );
        }
        chunks.push(chunk);
      });
      stream.on("end", () => {
        if (settled) return;
        settled = true;
        const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
        resolve({ status, statusText, headers: responseHeaders, kind: "whole", body });
      });
      stream.on("error", fail);
    };
    const req = send(url, method, headers, agent, onResponse);
    req.on("error", fail);
    if (signal) {
      const onAbort = () => {
        if (!settled) {
          settled = true;
          reject(abortReason(signal));
        }
        req.destroy();
      };
      signal.addEventListener("abort", onAbort, { once: true });
      // The listener goes when the exchange is over, so a long-lived signal does not collect them.
      req.on("close", () => signal.removeEventListener("abort", onAbort));
    }
    if (!streamed) return void req.end(body);
    // A streamed body goes out as it is read; a source that fails ends the exchange with its error.
    const source = body.open();
    source.on("error", (error) => {
      fail(error);
      req.destroy();
    });
    source.pipe(req);
  });
}

/**
 * Sends the request directly, through a CONNECT tunnel (https, when HTTPS_PROXY applies), or as an absolute-URI
 * request to the proxy (http, when HTTP_PROXY applies): see ./proxy.ts.
 */
function send(
  url: URL,
  method: string,
  headers: Record<string, string>,
  direct: http.Agent,
  onResponse: (res: http.IncomingMessage) => void,
): http.ClientRequest {
  const route = proxyRoute(url);
  if (route.kind === "direct")
    return (url.protocol === "https:" ? https : http).request(
      url,
      { method, headers, agent: direct },
      onResponse,
    );
  if (route.kind === "tunnel") return https.request(url, { method, headers, agent: route.agent }, onResponse);
  const { proxy } = route;
  const viaTls = proxy.protocol === "https:";
  return (viaTls ? https : http).request(
    {
      host: proxy.hostname,
      port: proxy.port || (viaTls ? 443 : 80),
      path: url.href,
      method,
      headers: {
        ...headers,
        host: url.host,
        ...(route.authorization ? { "proxy-authorization": route.authorization } : {}),
      },
      agent: route.agent,
    },
    onResponse,
  );
}

// Providers' endpoints are few and called again and again: each is parsed once.
const urls = new Map<string, URL>();
function parsed(input: string): URL {
  let url = urls.get(input);
  if (!url) {
    if (urls.size >= 256) urls.clear();
    url = new URL(input);
    urls.set(input, url);
  }
  return url;
}

/** A reply's headers as Web `Headers` (the SDKs read them so). */
export function webHeaders(headers: IncomingHttpHeaders): Headers {
  const out = new Headers();
  for (const [name, value] of Object.entries(headers)) {
    if (Array.isArray(value)) for (const v of value) out.append(name, v);
    else if (value !== undefined) out.set(name, value);
  }
  return out;
}

/**
 * The SDKs' transport: the fetch contract over `nodeRequest`, because Node's fetch costs about 0.5 ms of CPU per
 * call in web-stream plumbing (measured in bench/gateway-overhead). A JSON answer is read whole into the
 * Response; an event stream stays a stream. Bodies other than text or bytes go to Node's fetch.
 */
export function nodeFetch(input: string | URL | Request, init: RequestInit = {}, onHeaders?: () => void) {
  const body = init.body;
  if (input instanceof Request || (body != null && typeof body !== "string" && !(body instanceof Uint8Array)))
    return fetch(input, init).then((res) => {
      onHeaders?.();
      return res;
    });
  const headers: Record<string, string> = {};
  new Headers(init.headers).forEach((value, name) => {
    headers[name] = value;
  });
  return nodeRequest(
    String(input),
    { method: init.method ?? "GET", headers, body: body ?? undefined, signal: init.signal ?? undefined },
    onHeaders,
  ).then((reply) => {
    const meta = { status: reply.status, statusText: reply.statusText, headers: webHeaders(reply.headers) };
    if (reply.kind === "stream") return new Response(Readable.toWeb(reply.body) as ReadableStream, meta);
    const empty = reply.status === 204 || reply.status === 304 || init.method === "HEAD";
    return new Response(empty ? null : (reply.body as unknown as BodyInit), meta);
  });
}
