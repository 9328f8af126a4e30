import http from "node:http";
import https from "node:https";
import type { BlockList } from "node:net";
import type { Readable } from "node:stream";
import zlib from "node:zlib";
import { pinnedLookup, type ResolvedAddress, type Resolver, resolveAllowed } from "./net-guard";

export type PinnedClientOptions = {
  /** Ranges the operator opens despite the SSRF policy. */
  allow: BlockList;
  /** Host name resolution; tests inject one, production uses dns.lookup. */
  resolver: Resolver | undefined;
  /** Whole fetch, redirects and body included. */
  timeoutMs: number;
  /** Bytes of (decoded) body read before the response is cut. */
  maxBytes: number;
  maxRedirects: number;
};

export type RawResponse = {
  url: string;
  status: number;
  contentType: string;
  body: Buffer;
  truncated: boolean;
};
export type ContentKind = "html" | "text" | "json";

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const HEADERS = {
  "user-agent": "TollgateAgent/0.1 (web_fetch)",
  accept: "text/html,application/xhtml+xml,application/json;q=0.9,text/*;q=0.8",
  "accept-encoding": "gzip, deflate, br",
};
const IMAGE_HEADERS = {
  "user-agent": "TollgateAgent/0.1 (load_image)",
  accept: "image/png,image/jpeg,image/webp,image/gif;q=0.9",
  "accept-encoding": "identity",
};

/** What a GET is for: a page read as text (web_fetch, web_search) or an image (load_image). */
export type FetchKind = "page" | "image";

/**
 * An HTTP(S) GET client whose every hop is checked by the net guard and whose socket can only connect to the
 * address that was checked (no DNS rebinding between the check and the connect).
 */
export class PinnedClient {
  constructor(readonly options: PinnedClientOptions) {}

  /**
   * GET with the guard on every hop, a total time limit, Stop, and a size limit. `refusal` is asked about every
   * hop's URL before it is resolved or requested (the tenant's domain setting); a reason refuses it.
   */
  async get(
    startUrl: string,
    stop: AbortSignal,
    refusal: (url: URL) => string | null = () => null,
    kind: FetchKind = "page",
  ): Promise<RawResponse> {
    const { timeoutMs, maxBytes, maxRedirects } = this.options;
    const controller = new AbortController();
    const signal = controller.signal;
    const timer = setTimeout(
      () => controller.abort(new Error(`timed out after ${timeoutMs} ms fetching ${startUrl}`)),
      timeoutMs,
    );
    const onStop = () => controller.abort(new Error(`stopped: the fetch of ${startUrl} was cancelled`));
    if (stop.aborted) onStop();
    else stop.addEventListener("abort", onStop, { once: true });
    try {
      let url = httpUrl(startUrl);
      for (let hop = 0; ; hop++) {
        const refused = refusal(url);
        if (refused) throw new Error(hop ? `${refused} (redirected to ${url.href})` : refused);
        const checked = await resolveAllowed(url.hostname, {
          allow: this.options.allow,
          resolver: this.options.resolver,
          signal,
        });
        const res = await pinnedRequest(url, checked, signal, {
          headers: kind === "image" ? IMAGE_HEADERS : HEADERS,
        });
        const location = res.headers.location;
        if (REDIRECTS.has(res.statusCode ?? 0) && location) {
          res.destroy();
          if (hop >= maxRedirects) throw new Error(`too many redirects (more than ${maxRedirects})`);
          url = httpUrl(new URL(location, url).href);
          continue;
        }
        const contentType = res.headers["content-type"] ?? "";
        const unreadable = contentType ? refusedType(kind, url, contentType) : null;
        if (unreadable) {
          res.destroy();
          throw new Error(unreadable);
        }
        const { body, truncated } = await readBody(res, maxBytes, signal);
        return { url: url.href, status: res.statusCode ?? 0, contentType, body, truncated };
      }
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      // Socket errors carry a code and a terse message; say which URL failed.
      if (error instanceof Error && "code" in error)
        throw new Error(`could not fetch ${startUrl}: ${error.message}`);
      throw error;
    } finally {
      clearTimeout(timer);
      stop.removeEventListener("abort", onStop);
    }
  }
}

/** The declared kind; without a content type, sniff: NUL bytes mean binary, a leading tag means HTML. */
export function contentKind(contentType: string, body: Buffer): ContentKind {
  const declared = contentType ? kindOfMime(contentType) : null;
  if (declared) return declared;
  if (body.subarray(0, 1024).includes(0))
    throw new Error("refused: the response is binary, not a web page or text");
  return /^\s*<(!doctype html|html|head|body)\b/i.test(body.subarray(0, 512).toString("latin1"))
    ? "html"
    : "text";
}

/** The body as text in its declared charset (UTF-8 when none is declared or the name is unknown). */
export function decodeBody(body: Buffer, contentType: string): string {
  const charset = /charset\s*=\s*"?([^";\s]+)/i.exec(contentType)?.[1];
  try {
    return new TextDecoder(charset ?? "utf-8").decode(body);
  } catch {
    return new TextDecoder("utf-8").decode(body);
  }
}

function httpUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`refused: "${text}" is not a valid absolute URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new Error(`refused: only http and https URLs can be fetched, not ${url.protocol}`);
  }
  return url;
}

/** What a pinned request sends besides its URL (a GET with the web tools' headers by default). */
export type PinnedRequestInit = {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
};

/**
 * One HTTP(S) request whose socket can only connect to the address the guard checked (TLS still checks the
 * certificate against the URL's host name). Resolves at the response's headers; the body is the caller's to read.
 */
export function pinnedRequest(
  url: URL,
  checked: ResolvedAddress,
  signal: AbortSignal,
  init: PinnedRequestInit = {},
): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const req = (url.protocol === "https:" ? https : http).request({
      hostname: url.hostname.replace(/^\[(.*)\]$/, "$1"),
      port: url.port || undefined,
      path: `${url.pathname}${url.search}`,
      method: init.method ?? "GET",
      headers: init.headers ?? HEADERS,
      // A fresh agent: no pooled socket from another tool set (with another allow-list) is reused.
      agent: false,
      lookup: pinnedLookup(checked),
    });
    const onAbort = () => req.destroy(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    req.on("response", (res) => {
      signal.removeEventListener("abort", onAbort);
      // A Stop after the headers must still end the body's stream.
      const onLateAbort = () => res.destroy(signal.reason);
      signal.addEventListener("abort", onLateAbort, { once: true });
      res.once("close", () => signal.removeEventListener("abort", onLateAbort));
      resolve(res);
    });
    req.on("error", (error) => {
      signal.removeEventListener("abort", onAbort);
      reject(error);
    });
    req.end(init.body);
  });
}

/** A stream undoing the response's content coding (gzip, deflate, br), or null when it has none. */
export function contentDecoder(
  res: http.IncomingMessage,
): zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress | null {
  const encoding = String(res.headers["content-encoding"] ?? "").toLowerCase();
  if (encoding === "gzip" || encoding === "x-gzip") return zlib.createGunzip();
  if (encoding === "deflate") return zlib.createInflate();
  if (encoding === "br") return zlib.createBrotliDecompress();
  return null;
}

/** Reads at most `maxBytes` of the decompressed body, then hangs up. */
function readBody(
  res: http.IncomingMessage,
  maxBytes: number,
  signal: AbortSignal,
): Promise<{ body: Buffer; truncated: boolean }> {
  const decoder = contentDecoder(res);
  const stream: Readable = decoder ? res.pipe(decoder) : res;
  if (decoder) res.on("error", (error) => decoder.destroy(error));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (finish: () => void) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener("abort", onAbort);
      res.destroy();
      stream.destroy();
      finish();
    };
    const onAbort = () => settle(() => reject(signal.reason));
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    stream.on("data", (chunk: Buffer) => {
      if (size + chunk.length > maxBytes) {
        chunks.push(chunk.subarray(0, maxBytes - size));
        return settle(() => resolve({ body: Buffer.concat(chunks), truncated: true }));
      }
      chunks.push(chunk);
      size += chunk.length;
    });
    stream.on("end", () => settle(() => resolve({ body: Buffer.concat(chunks), truncated: false })));
    stream.on("error", (error) => settle(() => reject(error)));
  });
}

/** Why a response of this type is not read for `kind` (a page: HTML, text, JSON; an image: image/*), or null. */
function refusedType(kind: FetchKind, url: URL, contentType: string): string | null {
  const mime = mimeOf(contentType);
  if (kind === "image")
    return mime.startsWith("image/") ? null : `refused: ${url.href} is ${mime}, not an image`;
  return kindOfMime(contentType)
    ? null
    : `refused: ${url.href} is ${mime}; only HTML, text and JSON can be read`;
}

function mimeOf(contentType: string): string {
  return (contentType.split(";")[0] ?? "").trim().toLowerCase();
}

function kindOfMime(contentType: string): ContentKind | null {
  const mime = mimeOf(contentType);
  if (mime === "text/html" || mime === "application/xhtml+xml") return "html";
  if (mime === "application/json" || mime.endsWith("+json")) return "json";
  if (mime.startsWith("text/") || mime === "application/xml" || mime.endsWith("+xml")) return "text";
  return null;
}
