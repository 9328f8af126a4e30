import http from "node:http";
import https from "node:https";
import { Readable } from "node:stream";
import zlib from "node:zlib";

// Kept-alive connections to each provider, as Node's fetch keeps them.
const agents = {
  "http:": new http.Agent({ keepAlive: true, maxSockets: 256 }),
  "https:": new https.Agent({ keepAlive: true, maxSockets: 256 }),
};

const abortReason = (signal: AbortSignal): unknown =>
  signal.reason ?? new DOMException("This operation was aborted", "AbortError");

/**
 * The SDKs' transport: the fetch contract over node:http, because Node's fetch costs about 0.5 ms of CPU per call
 * in web-stream plumbing (measured in bench/gateway-overhead). A JSON answer is read whole into the Response; an
 * event stream stays a stream. `onHeaders` runs when the provider starts answering (the connect timer stops
 * there). Aborting rejects (or errors the stream) with the signal's reason, as fetch does; a connection failure
 * is a TypeError with the cause, as fetch's is. Bodies other than text or bytes go to Node's fetch.
 */
export function nodeFetch(input: string | URL | Request, init: RequestInit = {}, onHeaders?: () => void) {
  const body = init.body;
  if (input instanceof Request || (body != null && typeof body !== "string" && !(body instanceof Uint8Array)))
    return fetch(input, init).then((res) => {
      onHeaders?.();
      return res;
    });
  const url = new URL(String(input));
  const signal = init.signal ?? undefined;
  return new Promise<Response>((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal));
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => {
      headers[name] = value;
    });
    headers["accept-encoding"] ??= "gzip, deflate, br";
    const agent = agents[url.protocol as keyof typeof agents];
    if (!agent) return reject(new TypeError(`fetch failed: unsupported protocol ${url.protocol}`));
    let settled = false;
    const req = (url.protocol === "https:" ? https : http).request(
      url,
      { method: init.method ?? "GET", headers, agent },
      (res) => {
        onHeaders?.();
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          if (Array.isArray(value)) for (const v of value) responseHeaders.append(name, v);
          else if (value !== undefined) responseHeaders.set(name, value);
        }
        let stream: Readable = res;
        const encoding = res.headers["content-encoding"];
        if (encoding === "gzip" || encoding === "deflate" || encoding === "br") {
          stream = res.pipe(encoding === "br" ? zlib.createBrotliDecompress() : zlib.createUnzip());
          res.on("error", (error) => stream.destroy(error));
          responseHeaders.delete("content-encoding");
          responseHeaders.delete("content-length");
        }
        const status = res.statusCode ?? 502;
        const meta = { status, statusText: res.statusMessage ?? "", headers: responseHeaders };
        const finish = (response: Response) => {
          settled = true;
          resolve(response);
        };
        if (status === 204 || status === 304 || init.method === "HEAD") {
          res.resume();
          return finish(new Response(null, meta));
        }
        if (res.headers["content-type"]?.includes("text/event-stream")) {
          if (signal) {
            const stop = () => stream.destroy(abortReason(signal) as Error);
            signal.addEventListener("abort", stop, { once: true });
            stream.on("close", () => signal.removeEventListener("abort", stop));
          }
          return finish(new Response(Readable.toWeb(stream) as ReadableStream, meta));
        }
        const chunks: Buffer[] = [];
        stream.on("data", (chunk: Buffer) => chunks.push(chunk));
        stream.on("end", () => finish(new Response(Buffer.concat(chunks), meta)));
        stream.on("error", (error) => {
          if (!settled) {
            settled = true;
            reject(signal?.aborted ? abortReason(signal) : new TypeError("fetch failed", { cause: error }));
          }
        });
      },
    );
    req.on("error", (error) => {
      if (settled) return;
      settled = true;
      reject(signal?.aborted ? abortReason(signal) : new TypeError("fetch failed", { cause: error }));
    });
    const onAbort = () => {
      if (!settled) {
        settled = true;
        reject(abortReason(signal!));
      }
      req.destroy();
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    // The listener goes when the exchange is over, so a long-lived signal does not collect them.
    req.on("close", () => signal?.removeEventListener("abort", onAbort));
    req.end(body as string | Uint8Array | undefined);
  });
}
