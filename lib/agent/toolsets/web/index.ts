import { BlockList } from "node:net";
import { z } from "zod";
import { defineTool, type Tool, type ToolContext, ToolSet } from "@/lib/agent/tool";
import { htmlToText } from "./html-to-text";
import { parseAllowList, type Resolver } from "./net-guard";
import { contentKind, decodeBody, PinnedClient } from "./pinned-client";
import { OPEN_POLICY, policyRefusal, type WebFetchPolicy } from "./policy";

export type { WebFetchMode, WebFetchPolicy } from "./policy";

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
  /** The tenant's web_fetch setting, read on every call (absent: any public address). */
  policy?: (tenantId: string) => Promise<WebFetchPolicy>;
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

/** web_fetch, and web_search when a search endpoint is configured; every request goes through the pinned client. */
export class WebToolSet extends ToolSet {
  readonly name = "web";
  private readonly client: PinnedClient;
  private readonly searchUrl: string | null;
  private readonly list: Tool[];
  private readonly policyOf: (tenantId: string) => Promise<WebFetchPolicy>;

  constructor(options: WebToolSetOptions = {}) {
    super();
    this.client = new PinnedClient({
      allow: options.allow instanceof BlockList ? options.allow : parseAllowList(options.allow),
      resolver: options.resolver,
      timeoutMs: options.timeoutMs ?? 10_000,
      maxBytes: options.maxBytes ?? 1_000_000,
      maxRedirects: options.maxRedirects ?? 3,
    });
    this.searchUrl = options.searchUrl || null;
    this.policyOf = options.policy ?? (async () => OPEN_POLICY);
    if (this.searchUrl && (!this.searchUrl.includes("{query}") || !/^https?:\/\//i.test(this.searchUrl))) {
      throw new Error(`search URL "${this.searchUrl}" must be an http(s) URL containing {query}`);
    }
    // The agent's own per-tool timeout must not cut the fetch before its time limit does.
    const timeoutMs = this.client.options.timeoutMs + 5_000;
    const fetchTool = defineTool({
      name: "web_fetch",
      description: "Fetch a web page (http or https) and return its readable text, title and status.",
      category: "web",
      keywords: ["fetch", "url", "web page", "website"],
      timeoutMs,
      available: async (tenantId) => (await this.policyOf(tenantId)).mode !== "off",
      // A page is text anyone can write; its URL (query string included) goes to whoever the host is.
      readsOutsideText: true,
      sendsTo: (args) => hostOf(args.url),
      parameters: z.object({
        url: z
          .string()
          .min(1)
          .max(4096)
          .describe("The absolute http:// or https:// address of the page to read"),
      }),
      execute: async ({ url }, ctx) => {
        const policy = await this.policyOf(ctx.tenantId);
        return this.fetchPage(url, ctx.signal, (hop) => policyRefusal(policy, hop));
      },
    });
    const searchTool = defineTool({
      name: "web_search",
      description: "Search the web and return the top results with their title, address and a snippet.",
      category: "web",
      keywords: ["search", "web", "look up"],
      timeoutMs,
      // Results are outside text; the query goes to the operator's own search endpoint (WEB_SEARCH_URL).
      readsOutsideText: true,
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

  /** Fetches a page through the SSRF guard (and `refusal`, on every hop) and turns it into readable text. */
  async fetchPage(url: string, signal: AbortSignal, refusal?: (url: URL) => string | null): Promise<WebPage> {
    const raw = await this.client.get(url, signal, refusal);
    const kind = contentKind(raw.contentType, raw.body);
    const decoded = decodeBody(raw.body, raw.contentType);
    const page = kind === "html" ? htmlToText(decoded) : { text: decoded };
    const cut = raw.truncated
      ? `\n[page cut: only the first ${this.client.options.maxBytes} bytes were read]`
      : "";
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
    const raw = await this.client.get(
      this.searchUrl.replaceAll("{query}", encodeURIComponent(query)),
      signal,
    );
    if (raw.status < 200 || raw.status > 299)
      throw new Error(`the search endpoint answered HTTP ${raw.status}`);
    if (raw.truncated)
      throw new Error(`the search endpoint's answer is larger than ${this.client.options.maxBytes} bytes`);
    let body: unknown;
    try {
      body = JSON.parse(decodeBody(raw.body, raw.contentType));
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
}

/** The host a URL names, for the confirmation card ("?" when it is not a URL: the fetch refuses it anyway). */
export function hostOf(url: unknown): string {
  try {
    return new URL(String(url)).host || "?";
  } catch {
    return "?";
  }
}

/** The tool set as the environment configures it; `policy` reads the tenant's web_fetch setting. */
export function webToolSetFromEnv(
  env: Record<string, string | undefined> = process.env,
  policy?: WebToolSetOptions["policy"],
): WebToolSet {
  return new WebToolSet({
    policy,
    allow: env.WEB_FETCH_ALLOW,
    searchUrl: env.WEB_SEARCH_URL?.trim() || undefined,
    timeoutMs: positiveInt(env.WEB_FETCH_TIMEOUT_MS, "WEB_FETCH_TIMEOUT_MS"),
    maxBytes: positiveInt(env.WEB_FETCH_MAX_BYTES, "WEB_FETCH_MAX_BYTES"),
  });
}

/** A positive whole number from the environment, or undefined when unset; anything else fails at start. */
export function positiveInt(value: string | undefined, name: string): number | undefined {
  if (!value?.trim()) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0)
    throw new Error(`${name} must be a positive whole number, not "${value}"`);
  return n;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
