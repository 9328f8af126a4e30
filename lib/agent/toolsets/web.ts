import http from "node:http";
import https from "node:https";
import { BlockList } from "node:net";
import type { Readable } from "node:stream";
import zlib from "node:zlib";
import { z } from "zod";
import {
  parseAllowList,
  pinnedLookup,
  type ResolvedAddress,
  type Resolver,
  resolveAllowed,
} from "@/lib/agent/net-guard";
import { defineTool, type Tool, type ToolContext, ToolSet } from "@/lib/agent/tool";

export type WebToolSetOptions = {
  /** CIDR ranges the operator opens despite the SSRF policy (e.g. an intranet wiki, a local search engine). */
  allow?: string | string[] | BlockList;
  /** A search endpoint containing `{query}` that answers SearXNG-shaped JSON; without it there is no web_search. */
  searchUrl?: string;
  /** Whole fetch, redirects and body included. */
  timeoutMs?: number;
  /** Bytes of (decoded) body read before the page is cut. */
  maxBytes?: number;
  maxRedirects?: number;
  /** Host name resolution; tests inject one, production uses dns.lookup. */
  resolver?: Resolver;
};

export type WebPage = {
  url: string;
  status: number;
  contentType: string;
  title?: string;
  text: string;
  truncated: boolean;
};
export type SearchResult = { title: string; url: string; snippet: string };

type RawResponse = { url: string; status: number; contentType: string; body: Buffer; truncated: boolean };
type Kind = "html" | "text" | "json";

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const HEADERS = {
  "user-agent": "TollgateAgent/0.1 (web_fetch)",
  accept: "text/html,application/xhtml+xml,application/json;q=0.9,text/*;q=0.8",
  "accept-encoding": "gzip, deflate, br",
};

export class WebToolSet extends ToolSet {
  readonly name = "web";
  private readonly allow: BlockList;
  private readonly searchUrl: string | null;
  private readonly timeoutMs: number;
  private readonly maxBytes: number;
  private readonly maxRedirects: number;
  private readonly resolver: Resolver | undefined;
  private readonly list: Tool[];

  constructor(options: WebToolSetOptions = {}) {
    super();
    this.allow = options.allow instanceof BlockList ? options.allow : parseAllowList(options.allow);
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.maxBytes = options.maxBytes ?? 1_000_000;
    this.maxRedirects = options.maxRedirects ?? 3;
    this.resolver = options.resolver;
    this.searchUrl = options.searchUrl || null;
    if (this.searchUrl && (!this.searchUrl.includes("{query}") || !/^https?:\/\//i.test(this.searchUrl))) {
      throw new Error(`search URL "${this.searchUrl}" must be an http(s) URL containing {query}`);
    }
    // The agent's own per-tool timeout must not cut the fetch before its time limit does.
    const timeoutMs = this.timeoutMs + 5_000;
    const fetchTool = defineTool({
      name: "web_fetch",
      description: "Fetch a web page (http or https) and return its readable text, title and status.",
      category: "web",
      keywords: ["fetch", "url", "web page", "website"],
      timeoutMs,
      parameters: z.object({
        url: z
          .string()
          .min(1)
          .max(4096)
          .describe("The absolute http:// or https:// address of the page to read"),
      }),
      execute: ({ url }, ctx) => this.fetchPage(url, ctx.signal),
    });
    const searchTool = defineTool({
      name: "web_search",
      description: "Search the web and return the top results with their title, address and a snippet.",
      category: "web",
      keywords: ["search", "web", "look up"],
      timeoutMs,
      parameters: z.object({
        query: z
          .string()
          .min(1)
          .max(500)
          .describe("What to search for, as you would type it into a search engine"),
        limit: z
          .number()
          .int()
          .min(1)
          .max(10)
          .optional()
          .describe("How many results to return (default 5, at most 10)"),
      }),
      execute: ({ query, limit }, ctx: ToolContext) => this.search(query, limit ?? 5, ctx.signal),
    });
    this.list = this.searchUrl ? [fetchTool, searchTool] : [fetchTool];
  }

  tools(): Tool[] {
    return this.list;
  }

  override prompt(): string {
    const fetch =
      "Use web_fetch to read a web page when the user gives a URL or the answer is on a known website.";
    const search =
      " Use web_search to look things up on the web when you need current facts or do not know the URL.";
    return this.searchUrl ? fetch + search : fetch;
  }

  /** Fetches a page through the SSRF guard and turns it into readable text. */
  async fetchPage(url: string, signal: AbortSignal): Promise<WebPage> {
    const raw = await this.get(url, signal);
    const kind = contentKind(raw.contentType, raw.body);
    const decoded = decode(raw.body, raw.contentType);
    const page = kind === "html" ? htmlToText(decoded) : { text: decoded };
    const cut = raw.truncated ? `\n[page cut: only the first ${this.maxBytes} bytes were read]` : "";
    return {
      url: raw.url,
      status: raw.status,
      contentType: raw.contentType,
      ...(page.title ? { title: page.title } : {}),
      text: page.text + cut,
      truncated: raw.truncated,
    };
  }

  /** Queries the configured SearXNG-style endpoint. */
  async search(
    query: string,
    limit: number,
    signal: AbortSignal,
  ): Promise<{ query: string; results: SearchResult[] }> {
    if (!this.searchUrl) throw new Error("web search is not configured (set WEB_SEARCH_URL)");
    const raw = await this.get(this.searchUrl.replaceAll("{query}", encodeURIComponent(query)), signal);
    if (raw.status < 200 || raw.status > 299)
      throw new Error(`the search endpoint answered HTTP ${raw.status}`);
    if (raw.truncated) throw new Error(`the search endpoint's answer is larger than ${this.maxBytes} bytes`);
    let body: unknown;
    try {
      body = JSON.parse(decode(raw.body, raw.contentType));
    } catch {
      throw new Error("the search endpoint did not answer JSON");
    }
    const items = isRecord(body) && Array.isArray(body.results) ? body.results : [];
    const results: SearchResult[] = [];
    for (const item of items) {
      if (!isRecord(item) || typeof item.url !== "string") continue;
      const text = (v: unknown) => (typeof v === "string" ? v : "");
      results.push({ title: text(item.title), url: item.url, snippet: text(item.content) });
      if (results.length >= Math.min(limit, 10)) break;
    }
    return { query, results };
  }

  /** GET with the guard on every hop, a total time limit, Stop, and a size limit. */
  private async get(startUrl: string, stop: AbortSignal): Promise<RawResponse> {
    const controller = new AbortController();
    const signal = controller.signal;
    const timer = setTimeout(
      () => controller.abort(new Error(`timed out after ${this.timeoutMs} ms fetching ${startUrl}`)),
      this.timeoutMs,
    );
    const onStop = () => controller.abort(new Error(`stopped: the fetch of ${startUrl} was cancelled`));
    if (stop.aborted) onStop();
    else stop.addEventListener("abort", onStop, { once: true });
    try {
      let url = httpUrl(startUrl);
      for (let hop = 0; ; hop++) {
        const checked = await resolveAllowed(url.hostname, {
          allow: this.allow,
          resolver: this.resolver,
          signal,
        });
        const res = await request(url, checked, signal);
        const location = res.headers.location;
        if (REDIRECTS.has(res.statusCode ?? 0) && location) {
          res.destroy();
          if (hop >= this.maxRedirects)
            throw new Error(`too many redirects (more than ${this.maxRedirects})`);
          url = httpUrl(new URL(location, url).href);
          continue;
        }
        const contentType = res.headers["content-type"] ?? "";
        if (contentType && !kindOfMime(contentType)) {
          res.destroy();
          throw new Error(
            `refused: ${url.href} is ${mimeOf(contentType)}; only HTML, text and JSON can be read`,
          );
        }
        const { body, truncated } = await readBody(res, this.maxBytes, signal);
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

/** The tool set as the environment configures it. */
export function webToolSetFromEnv(env: Record<string, string | undefined> = process.env): WebToolSet {
  return new WebToolSet({
    allow: env.WEB_FETCH_ALLOW,
    searchUrl: env.WEB_SEARCH_URL?.trim() || undefined,
    timeoutMs: positiveInt(env.WEB_FETCH_TIMEOUT_MS, "WEB_FETCH_TIMEOUT_MS"),
    maxBytes: positiveInt(env.WEB_FETCH_MAX_BYTES, "WEB_FETCH_MAX_BYTES"),
  });
}

function positiveInt(value: string | undefined, name: string): number | undefined {
  if (!value?.trim()) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0)
    throw new Error(`${name} must be a positive whole number, not "${value}"`);
  return n;
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

/** One GET whose socket can only connect to the address the guard checked. */
function request(url: URL, checked: ResolvedAddress, signal: AbortSignal): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const req = (url.protocol === "https:" ? https : http).request({
      hostname: url.hostname.replace(/^\[(.*)\]$/, "$1"),
      port: url.port || undefined,
      path: `${url.pathname}${url.search}`,
      method: "GET",
      headers: HEADERS,
      // A fresh agent: no pooled socket from another tool set (with another allow-list) is reused.
      agent: false,
      lookup: pinnedLookup(checked),
    });
    const onAbort = () => req.destroy(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    req.on("response", (res) => {
      signal.removeEventListener("abort", onAbort);
      resolve(res);
    });
    req.on("error", (error) => {
      signal.removeEventListener("abort", onAbort);
      reject(error);
    });
    req.end();
  });
}

/** Reads at most `maxBytes` of the decompressed body, then hangs up. */
function readBody(
  res: http.IncomingMessage,
  maxBytes: number,
  signal: AbortSignal,
): Promise<{ body: Buffer; truncated: boolean }> {
  const encoding = String(res.headers["content-encoding"] ?? "").toLowerCase();
  const decoder =
    encoding === "gzip" || encoding === "x-gzip"
      ? zlib.createGunzip()
      : encoding === "deflate"
        ? zlib.createInflate()
        : encoding === "br"
          ? zlib.createBrotliDecompress()
          : null;
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

function mimeOf(contentType: string): string {
  return (contentType.split(";")[0] ?? "").trim().toLowerCase();
}

function kindOfMime(contentType: string): Kind | null {
  const mime = mimeOf(contentType);
  if (mime === "text/html" || mime === "application/xhtml+xml") return "html";
  if (mime === "application/json" || mime.endsWith("+json")) return "json";
  if (mime.startsWith("text/") || mime === "application/xml" || mime.endsWith("+xml")) return "text";
  return null;
}

/** The declared kind; without a content type, sniff: NUL bytes mean binary, a leading tag means HTML. */
function contentKind(contentType: string, body: Buffer): Kind {
  const declared = contentType ? kindOfMime(contentType) : null;
  if (declared) return declared;
  if (body.subarray(0, 1024).includes(0))
    throw new Error("refused: the response is binary, not a web page or text");
  return /^\s*<(!doctype html|html|head|body)\b/i.test(body.subarray(0, 512).toString("latin1"))
    ? "html"
    : "text";
}

function decode(body: Buffer, contentType: string): string {
  const charset = /charset\s*=\s*"?([^";\s]+)/i.exec(contentType)?.[1];
  try {
    return new TextDecoder(charset ?? "utf-8").decode(body);
  } catch {
    return new TextDecoder("utf-8").decode(body);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: "\u00a0",
  copy: "©",
  reg: "®",
  hellip: "…",
  mdash: "—",
  ndash: "–",
  lsquo: "‘",
  rsquo: "’",
  ldquo: "“",
  rdquo: "”",
};

/** Decodes named and numeric entities in one pass, so "&amp;lt;" stays "&lt;". */
export function decodeEntities(text: string): string {
  return text.replace(/&(#\d{1,7}|#x[0-9a-f]{1,6}|[a-z]{2,8});/gi, (match, body: string) => {
    if (body[0] !== "#") return ENTITIES[body.toLowerCase()] ?? match;
    const code =
      body[1] === "x" || body[1] === "X" ? Number.parseInt(body.slice(2), 16) : Number(body.slice(1));
    const valid = code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff);
    return valid ? String.fromCodePoint(code) : "\uFFFD";
  });
}

const HIDDEN = "script|style|noscript|svg|template|iframe|object|title";
const BLOCK =
  "p|div|br|hr|li|ul|ol|dl|dt|dd|h[1-6]|tr|table|thead|tbody|tfoot|section|article|header|footer|nav|main|" +
  "aside|blockquote|pre|figure|figcaption|form|fieldset|details|summary|address|caption|body|html";

/** Readable text of an HTML page: hidden parts dropped, blocks on their own lines, tags gone, entities decoded. */
export function htmlToText(html: string): { title?: string; text: string } {
  const titleMatch = /<title\b[^>]*>([\s\S]*?)<\/title\s*>/i.exec(html);
  const title = titleMatch ? collapse(decodeEntities(titleMatch[1] ?? "")).replace(/\n/g, " ") : "";
  const text = html
    .replace(/<!--[\s\S]*?(-->|$)/g, "")
    // The head's end tag is optional in HTML, so it also ends where the body starts.
    .replace(/<head\b[^>]*>[\s\S]*?(<\/head\s*>|(?=<body\b))/gi, "")
    .replace(new RegExp(`<(${HIDDEN})\\b[^>]*>[\\s\\S]*?(<\\/\\1\\s*>|$)`, "gi"), "")
    .replace(new RegExp(`<\\/?(${BLOCK})\\b[^>]*>`, "gi"), "\n")
    .replace(/<\/?t[dh]\b[^>]*>/gi, " ")
    .replace(/<[a-z/!?][^>]*>/gi, "");
  return { ...(title ? { title } : {}), text: collapse(decodeEntities(text)) };
}

/** Single spaces within lines and no blank lines: the model pays for every character. */
function collapse(text: string): string {
  return text
    .split(/\r\n?|\n/)
    .map((line) => line.replace(/\s+/g, " ").trim())
    .join("\n")
    .replace(/\n{2,}/g, "\n")
    .trim();
}
