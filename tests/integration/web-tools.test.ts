import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parseToolArgs, type ToolContext } from "@/lib/agent/tool";
import { WebToolSet, webToolSetFromEnv } from "@/lib/agent/toolsets/web";
import { htmlToText } from "@/lib/agent/toolsets/web/html-to-text";
import {
  blockedReason,
  isBlockedAddress,
  parseAllowList,
  pinnedLookup,
  type ResolvedAddress,
  resolveAllowed,
} from "@/lib/agent/toolsets/web/net-guard";

const PAGE = `<!doctype html><html><head><title>Tollgate &amp; friends</title>
<meta name="description" content="head-meta"><style>body { color: red }</style></head>
<body><script>alert("boom")</script><noscript>enable-js</noscript><svg><text>svg-text</text></svg>
<h1>Hello &lt;world&gt;</h1><p>First &quot;paragraph&quot; it&#39;s&nbsp;here</p>
<p>Second <b>bold</b>   paragraph &#169; &#x263A;</p><!-- a comment --></body></html>`;

type Seen = { url: string; host: string };
const seen: Seen[] = [];
const hanging: http.ServerResponse[] = [];

// Every route the tests need; each request is recorded so refusals can prove nothing was sent.
const handler: http.RequestListener = (req, res) => {
  seen.push({ url: req.url ?? "", host: req.headers.host ?? "" });
  const path = new URL(req.url ?? "/", "http://x").pathname;
  const send = (type: string, body: string | Buffer, status = 200) => {
    res.writeHead(status, { "content-type": type });
    res.end(body);
  };
  if (path === "/page") return send("text/html; charset=utf-8", PAGE);
  if (path === "/json") return send("application/json", '{"ok":true}');
  if (path === "/big") return send("text/plain", "x".repeat(50_000));
  if (path === "/binary") return send("application/octet-stream", Buffer.from([0, 1, 2, 3]));
  if (path === "/hang") return void hanging.push(res);
  if (path === "/to-metadata") return redirect(res, "http://169.254.169.254/latest/meta-data/");
  if (path === "/to-private") return redirect(res, "http://10.0.0.1/");
  if (path === "/to-page") return redirect(res, "/page");
  if (path === "/loop") return redirect(res, "/loop");
  if (path === "/search") {
    const q = new URL(req.url ?? "/", "http://x").searchParams.get("q");
    const results = [1, 2, 3].map((i) => ({
      title: `${q} ${i}`,
      url: `https://r${i}.example/`,
      content: `snippet ${i}`,
    }));
    return send("application/json", JSON.stringify({ query: q, results: [{ title: "no url" }, ...results] }));
  }
  send("text/plain", "not found", 404);
};

function redirect(res: http.ServerResponse, location: string) {
  res.writeHead(302, { location });
  res.end();
}

async function listen(host: string): Promise<http.Server | null> {
  const server = http.createServer(handler);
  return new Promise((resolve) => {
    server.once("error", () => resolve(null));
    server.listen(0, host, () => resolve(server));
  });
}

function context(signal: AbortSignal = new AbortController().signal): ToolContext {
  return {
    tenantId: "t1",
    userId: "u1",
    role: "member",
    conversationId: "c1",
    turnId: "turn1",
    signal,
    emit: async () => {},
    addMessage: async () => {
      throw new Error("no model reads messages here");
    },
    addUsage: () => {},
    noteUse: () => {},
  };
}

async function call(set: WebToolSet, name: string, args: Record<string, unknown>, signal?: AbortSignal) {
  const tool = set.tools().find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  const parsed = parseToolArgs(tool, args);
  if (!parsed.ok) throw new Error(parsed.error);
  return tool.execute(parsed.value as never, context(signal)) as Promise<Record<string, unknown>>;
}

let v4: http.Server;
let v6: http.Server | null;
let port: number;
let port6: number;

beforeAll(async () => {
  const server = await listen("127.0.0.1");
  if (!server) throw new Error("cannot listen on 127.0.0.1");
  v4 = server;
  port = (v4.address() as AddressInfo).port;
  // A second listener on ::1 so the [::1] refusal also proves no request went out (skipped without IPv6).
  v6 = await listen("::1");
  port6 = v6 ? (v6.address() as AddressInfo).port : port;
});
afterAll(async () => {
  for (const res of hanging) res.destroy();
  for (const server of [v4, v6]) {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  }
});
beforeEach(() => {
  seen.length = 0;
});

describe("SSRF refusals (no allow-list)", () => {
  const set = () => new WebToolSet({ timeoutMs: 3_000 });
  const cases: [string, () => string, RegExp][] = [
    ["loopback IPv4", () => `http://127.0.0.1:${port}/page`, /refused: 127\.0\.0\.1 is a loopback address/],
    ["private", () => "http://10.0.0.1/", /refused: 10\.0\.0\.1 is a private address/],
    [
      "metadata",
      () => "http://169.254.169.254/latest/meta-data/",
      /169\.254\.169\.254 is the cloud metadata address/,
    ],
    ["link-local", () => "http://169.254.1.1/", /169\.254\.1\.1 is a link-local address/],
    ["carrier-grade NAT", () => "http://100.64.0.1/", /carrier-grade NAT/],
    ["loopback IPv6", () => `http://[::1]:${port6}/page`, /refused: ::1 is a loopback address/],
    [
      "name resolving to loopback",
      () => `http://localhost:${port}/page`,
      /localhost resolves to 127\.0\.0\.1, which is a loopback/,
    ],
    ["decimal IPv4", () => `http://2130706433:${port}/page`, /refused: 127\.0\.0\.1 is a loopback address/],
    ["hex IPv4", () => `http://0x7f.0.0.1:${port}/page`, /refused: 127\.0\.0\.1 is a loopback address/],
    ["short hex IPv4", () => `http://0x7f.1:${port}/page`, /refused: 127\.0\.0\.1 is a loopback address/],
    ["octal IPv4", () => `http://0177.0.0.1:${port}/page`, /refused: 127\.0\.0\.1 is a loopback address/],
    [
      "IPv4-mapped IPv6",
      () => `http://[::ffff:127.0.0.1]:${port}/page`,
      /::ffff:7f00:1 is a loopback address/,
    ],
    ["unspecified", () => `http://0.0.0.0:${port}/page`, /unspecified address/],
  ];
  it.each(cases)("refuses %s and sends nothing", async (_name, url, reason) => {
    await expect(call(set(), "web_fetch", { url: url() })).rejects.toThrow(reason);
    expect(seen).toEqual([]);
  });

  it.each([
    ["file:///etc/passwd", /only http and https URLs can be fetched, not file:/],
    ["ftp://example.com/file.txt", /not ftp:/],
    ["javascript:alert(1)", /not javascript:/],
    ["not a url", /not a valid absolute URL/],
  ])("refuses %s", async (url, reason) => {
    await expect(call(set(), "web_fetch", { url })).rejects.toThrow(reason);
  });

  it("refuses a redirect from an allowed server to a blocked address, re-checking each hop", async () => {
    const only = new WebToolSet({ allow: "127.0.0.1/32", timeoutMs: 3_000 });
    await expect(call(only, "web_fetch", { url: `http://127.0.0.1:${port}/to-metadata` })).rejects.toThrow(
      /refused: 169\.254\.169\.254 is the cloud metadata address/,
    );
    await expect(call(only, "web_fetch", { url: `http://127.0.0.1:${port}/to-private` })).rejects.toThrow(
      /refused: 10\.0\.0\.1 is a private address/,
    );
    expect(seen.map((s) => s.url)).toEqual(["/to-metadata", "/to-private"]);
    // The allow-list opens exactly what it says: 127.0.0.2 is still loopback.
    await expect(call(only, "web_fetch", { url: `http://127.0.0.2:${port}/page` })).rejects.toThrow(
      /loopback/,
    );
  });
});

describe("web_fetch with the local range allowed", () => {
  const set = (options: ConstructorParameters<typeof WebToolSet>[0] = {}) =>
    new WebToolSet({ allow: "127.0.0.0/8", ...options });

  it("returns readable text and the title of an HTML page", async () => {
    const page = await call(set(), "web_fetch", { url: `http://127.0.0.1:${port}/page` });
    expect(page).toMatchObject({ url: `http://127.0.0.1:${port}/page`, status: 200, truncated: false });
    expect(page.contentType).toMatch(/^text\/html/);
    expect(page.title).toBe("Tollgate & friends");
    expect(page.text).toBe('Hello <world>\nFirst "paragraph" it\'s here\nSecond bold paragraph © ☺');
    expect(page.text).not.toMatch(/alert|color|head-meta|enable-js|svg-text|comment/);
  });

  it("returns JSON as is and follows redirects", async () => {
    expect(await call(set(), "web_fetch", { url: `http://127.0.0.1:${port}/json` })).toMatchObject({
      text: '{"ok":true}',
      contentType: "application/json",
    });
    const page = await call(set(), "web_fetch", { url: `http://127.0.0.1:${port}/to-page` });
    expect(page).toMatchObject({ url: `http://127.0.0.1:${port}/page`, title: "Tollgate & friends" });
  });

  it("follows at most 3 redirects", async () => {
    await expect(call(set(), "web_fetch", { url: `http://127.0.0.1:${port}/loop` })).rejects.toThrow(
      /too many redirects/,
    );
    expect(seen).toHaveLength(4);
  });

  it("cuts a body over the size limit and says so", async () => {
    const page = await call(set({ maxBytes: 10_000 }), "web_fetch", { url: `http://127.0.0.1:${port}/big` });
    expect(page.truncated).toBe(true);
    expect(page.text).toMatch(/^x{10000}\n\[page cut: only the first 10000 bytes were read\]$/);
  });

  it("refuses a binary content type", async () => {
    await expect(call(set(), "web_fetch", { url: `http://127.0.0.1:${port}/binary` })).rejects.toThrow(
      /application\/octet-stream; only HTML, text and JSON can be read/,
    );
  });

  it("cuts a hanging server at the time limit", async () => {
    const started = Date.now();
    await expect(
      call(set({ timeoutMs: 300 }), "web_fetch", { url: `http://127.0.0.1:${port}/hang` }),
    ).rejects.toThrow(/timed out after 300 ms/);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("stops at once when the turn's signal aborts", async () => {
    const stop = new AbortController();
    const started = Date.now();
    const pending = call(set(), "web_fetch", { url: `http://127.0.0.1:${port}/hang` }, stop.signal);
    setTimeout(() => stop.abort(), 100);
    await expect(pending).rejects.toThrow(/stopped/);
    expect(Date.now() - started).toBeLessThan(2_000);

    seen.length = 0;
    const already = AbortSignal.abort();
    await expect(call(set(), "web_fetch", { url: `http://127.0.0.1:${port}/page` }, already)).rejects.toThrow(
      /stopped/,
    );
    expect(seen).toEqual([]);
  });
});

describe("DNS rebinding", () => {
  it("connects to the address that was checked, not to a second DNS answer", async () => {
    const answers: ResolvedAddress[][] = [
      [{ address: "127.0.0.1", family: 4 }],
      [{ address: "127.0.0.2", family: 4 }],
    ];
    let lookups = 0;
    const resolver = async () => answers[Math.min(lookups++, 1)]!;
    // Only 127.0.0.1 is allowed: a second resolution (127.0.0.2) would be refused or find no listener.
    const set = new WebToolSet({ allow: "127.0.0.1/32", resolver });
    const page = await call(set, "web_fetch", { url: `http://rebind.test:${port}/page` });
    expect(page.title).toBe("Tollgate & friends");
    expect(lookups).toBe(1);
    expect(seen).toEqual([{ url: "/page", host: `rebind.test:${port}` }]);
  });

  it("pins the socket lookup to the checked answer, whatever DNS says at connect time", async () => {
    const answers: ResolvedAddress[][] = [
      [{ address: "93.184.216.34", family: 4 }],
      [{ address: "127.0.0.1", family: 4 }],
    ];
    let lookups = 0;
    const resolver = async () => answers[Math.min(lookups++, 1)]!;
    const checked = await resolveAllowed("rebind.test", { resolver });
    expect(checked).toEqual({ address: "93.184.216.34", family: 4 });
    const lookup = pinnedLookup(checked);
    const single = await new Promise((resolve) =>
      lookup("rebind.test", {}, (_e, address) => resolve(address)),
    );
    const all = await new Promise((resolve) =>
      lookup("rebind.test", { all: true }, (_e, address) => resolve(address)),
    );
    expect(single).toBe("93.184.216.34");
    expect(all).toEqual([{ address: "93.184.216.34", family: 4 }]);
    // The second, rebinding answer is refused when it is the one being checked.
    await expect(resolveAllowed("rebind.test", { resolver })).rejects.toThrow(
      /rebind\.test resolves to 127\.0\.0\.1, which is a loopback address/,
    );
  });

  it("refuses a name when any of its addresses is blocked", async () => {
    const resolver = async (): Promise<ResolvedAddress[]> => [
      { address: "93.184.216.34", family: 4 },
      { address: "10.1.2.3", family: 4 },
    ];
    await expect(resolveAllowed("mixed.test", { resolver })).rejects.toThrow(
      /10\.1\.2\.3, which is a private/,
    );
    const allow = parseAllowList("10.1.0.0/16");
    await expect(resolveAllowed("mixed.test", { resolver, allow })).resolves.toEqual({
      address: "93.184.216.34",
      family: 4,
    });
  });
});

describe("address policy", () => {
  it.each([
    ["127.0.0.1", "a loopback address"],
    ["0.0.0.0", "an unspecified address"],
    ["::", "an unspecified address"],
    ["172.31.255.255", "a private address"],
    ["192.168.1.1", "a private address"],
    ["fe80::1%eth0", "a link-local address"],
    ["fd12:3456::1", "a unique-local address"],
    ["224.0.0.1", "a multicast address"],
    ["ff02::1", "a multicast address"],
    ["255.255.255.255", "a reserved address"],
    ["::ffff:169.254.169.254", "the cloud metadata address (embedded IPv4 169.254.169.254)"],
    ["::ffff:a00:1", "a private address (embedded IPv4 10.0.0.1)"],
    ["64:ff9b::7f00:1", "a loopback address (embedded IPv4 127.0.0.1)"],
    ["::127.0.0.1", "a reserved address"],
    ["not-an-ip", "not an IP address"],
  ])("%s is %s", (ip, reason) => {
    expect(blockedReason(ip)).toBe(reason);
  });

  it.each(["8.8.8.8", "93.184.216.34", "172.32.0.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"])(
    "%s is public",
    (ip) => {
      expect(isBlockedAddress(ip)).toBe(false);
    },
  );

  it("opens the operator's ranges, and rejects malformed ones", () => {
    const allow = parseAllowList("127.0.0.0/8, 10.1.0.0/16,fd00::/8");
    expect(isBlockedAddress("127.4.5.6", allow)).toBe(false);
    expect(isBlockedAddress("::ffff:127.0.0.1", allow)).toBe(false);
    expect(isBlockedAddress("10.1.9.9", allow)).toBe(false);
    expect(isBlockedAddress("10.2.0.1", allow)).toBe(true);
    expect(isBlockedAddress("fd00::5", allow)).toBe(false);
    expect(() => parseAllowList("10.0.0.0/33")).toThrow(/not an address range/);
    expect(() => parseAllowList("intranet")).toThrow(/not an address range/);
  });

  it("turns HTML into text without double-decoding entities", () => {
    expect(htmlToText("<p>a &amp;lt; b</p><td>x</td><td>y</td>")).toEqual({ text: "a &lt; b\nx y" });
    expect(htmlToText("<html><head><title>T</title><body>kept<script>cut to the end").text).toBe("kept");
  });
});

describe("web_search", () => {
  const searchUrl = () => `http://127.0.0.1:${port}/search?q={query}&format=json`;

  it("is not offered without a search URL", () => {
    expect(new WebToolSet().tools().map((t) => t.name)).toEqual(["web_fetch"]);
    expect(
      webToolSetFromEnv({})
        .tools()
        .map((t) => t.name),
    ).toEqual(["web_fetch"]);
    expect(new WebToolSet().prompt()).not.toMatch(/web_search/);
  });

  it("returns mapped results from a SearXNG-shaped endpoint", async () => {
    const set = webToolSetFromEnv({ WEB_SEARCH_URL: searchUrl(), WEB_FETCH_ALLOW: "127.0.0.1/32" });
    expect(set.tools().map((t) => t.name)).toEqual(["web_fetch", "web_search"]);
    expect(set.prompt()).toMatch(/web_search/);
    const answer = await call(set, "web_search", { query: "tollgate agents", limit: 2 });
    expect(answer.results).toEqual([
      { title: "tollgate agents 1", url: "https://r1.example/", snippet: "snippet 1" },
      { title: "tollgate agents 2", url: "https://r2.example/", snippet: "snippet 2" },
    ]);
    expect(seen.map((s) => s.url)).toEqual(["/search?q=tollgate%20agents&format=json"]);
  });

  it("applies the same guard to the search host", async () => {
    const set = new WebToolSet({ searchUrl: searchUrl() });
    await expect(call(set, "web_search", { query: "x" })).rejects.toThrow(
      /refused: 127\.0\.0\.1 is a loopback/,
    );
    expect(seen).toEqual([]);
  });

  it("reads its settings from the environment and rejects bad ones", () => {
    expect(() => webToolSetFromEnv({ WEB_FETCH_MAX_BYTES: "lots" })).toThrow(/WEB_FETCH_MAX_BYTES/);
    expect(() => webToolSetFromEnv({ WEB_SEARCH_URL: "https://search.example/" })).toThrow(/\{query\}/);
    expect(() => webToolSetFromEnv({ WEB_FETCH_ALLOW: "10.0.0.0/8,nope" })).toThrow(/"nope"/);
  });
});
