// Decompression bombs from a registered MCP server: tens of MB of gzip on the wire that would decode to gigabytes,
// answered to tools/list (at registration) and to tools/call, as JSON and as an SSE stream. The client cuts each
// at MCP_MAX_RESPONSE_BYTES, the process's memory stays bounded, and the error names the server and the limit.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { mcpServer } from "@/db/schema";
import { DEFAULT_POLICY, mcpTools } from "@/features/mcp/server/client/tool-source";
import { runToolCall } from "@/lib/agent/run-tools";
import type { ToolContext } from "@/lib/agent/tool";
import { WebToolSet } from "@/lib/agent/toolsets/web";
import { type FakeMcpServer, type McpBomb, startFakeMcpServer } from "../fakes/mcp-server";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";
import { session } from "../helpers/session";

vi.mock("@/lib/auth/session", () => import("../helpers/session"));

const servers = await import("@/app/api/mcp/servers/route");
const refresh = await import("@/app/api/mcp/servers/[id]/refresh/route");

const LIMIT = 4 * 1024 * 1024;
/** How much the process may grow while a bomb of gigabytes is cut off. */
const MAX_RSS_GROWTH = 200 * 1024 * 1024;
const LIMIT_TEXT = `larger than ${LIMIT} bytes (MCP_MAX_RESPONSE_BYTES)`;

const post = (url: string, body: unknown) =>
  new Request(url, {
    method: "POST",
    body: JSON.stringify(body),
    headers: { "content-type": "application/json" },
  });
const params = <P>(p: P) => ({ params: Promise.resolve(p) });

/** Runs `work` and the largest RSS growth seen while it ran (sampled every 5 ms). */
async function peakGrowth<T>(work: () => Promise<T>): Promise<{ value: T; growth: number }> {
  global.gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  try {
    const value = await work();
    peak = Math.max(peak, process.memoryUsage().rss);
    return { value, growth: peak - before };
  } finally {
    clearInterval(sampler);
  }
}

describe.each(testDbKinds)("MCP responses are cut at MCP_MAX_RESPONSE_BYTES, on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let fake: FakeMcpServer;

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    fake = await startFakeMcpServer();
  });
  afterAll(async () => {
    await app.close();
    await fake.close();
  });
  beforeEach(async () => {
    await app.db.delete(mcpServer);
    await app.rebuild({ env: { ...process.env, WEB_FETCH_ALLOW: "127.0.0.0/8" } });
    fake.reset();
    session.claims = {
      userId: await app.userId("admin@acme.test"),
      tenantId: await app.tenantId("acme"),
    };
  });

  const register = (name: string) =>
    servers.POST(
      post("http://app/api/mcp/servers", { name, url: fake.url, transport: "streamable" }),
      params({}),
    );

  for (const as of ["json", "sse"] as const) {
    it(`refuses to register a server whose tools/list is a gzip bomb (${as}), naming the server and the limit`, async () => {
      fake.bomb({ method: "tools/list", as });
      const { value: res, growth } = await peakGrowth(() => register(`bomb-${as}`));
      const body = (await res.json()) as { error: { message: string } };
      expect(res.status).toBe(400);
      expect(body.error.message).toContain(`the MCP server at ${fake.origin}`);
      expect(body.error.message).toContain(LIMIT_TEXT);
      expect(growth).toBeLessThan(MAX_RSS_GROWTH);
      // Cut off: the client hung up before the bomb's end (the transport may try a second request, also cut).
      await fake.waitFor(() => fake.bombed.hungUp >= 1);
    });

    it(`a tools/call answered with a gzip bomb (${as}) is an {"error"} tool result naming the limit`, async () => {
      const res = await register(`calls-${as}`);
      expect(res.status).toBe(201);
      const { id } = (await res.json()) as { id: string };
      const [row] = await app.db.select().from(mcpServer).where(eq(mcpServer.id, id));
      const tools = mcpTools(row!, () => DEFAULT_POLICY, app.container.mcp.clients);
      const echo = tools.find((t) => t.name === `calls-${as}__echo`)!;

      fake.bomb({ method: "tools/call", as } satisfies McpBomb);
      const context = (_: unknown, signal: AbortSignal) =>
        ({ tenantId: row!.tenantId, signal }) as unknown as ToolContext;
      const { value: outcome, growth } = await peakGrowth(() =>
        runToolCall(
          { id: "call-1", name: echo.name, args: { text: "hello" } },
          {
            tools: new Map([[echo.name, echo]]),
            mayCall: () => true,
            maxConcurrent: 1,
            defaultTimeoutMs: 20_000,
            context,
            signal: new AbortController().signal,
          },
        ),
      );
      expect(outcome.ok).toBe(false);
      const error = (JSON.parse(outcome.content) as { error: string }).error;
      expect(error).toContain(`the MCP server at ${fake.origin}`);
      expect(error).toContain(LIMIT_TEXT);
      expect(growth).toBeLessThan(MAX_RSS_GROWTH);

      // The server answers normally again: the next call opens a fresh session and works.
      fake.bomb(null);
      const again = await runToolCall(
        { id: "call-2", name: echo.name, args: { text: "hello" } },
        {
          tools: new Map([[echo.name, echo]]),
          mayCall: () => true,
          maxConcurrent: 1,
          defaultTimeoutMs: 20_000,
          context,
          signal: new AbortController().signal,
        },
      );
      expect(again).toMatchObject({ ok: true, content: "echo: hello" });
    });
  }

  it("a refresh answered with a gzip bomb is refused with the limit, and the failure is recorded", async () => {
    const res = await register("refreshed");
    const { id } = (await res.json()) as { id: string };
    fake.bomb({ method: "tools/list", as: "json" });
    const refused = await refresh.POST(post(`http://app/api/mcp/servers/${id}/refresh`, {}), params({ id }));
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain(LIMIT_TEXT);
    const [row] = await app.db.select().from(mcpServer).where(eq(mcpServer.id, id));
    expect(row!.lastError).toContain(LIMIT_TEXT);
  });
});

describe("web_fetch's decoder (the one the MCP transport shares) keeps its own bound", () => {
  it("reads a gzip bomb of 4 GB only up to WEB_FETCH_MAX_BYTES, then hangs up", async () => {
    const piece = gzipSync(Buffer.alloc(16 * 1024 * 1024, "a"));
    let hungUp = false;
    const server = http.createServer(async (_req, res) => {
      res.writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip" });
      res.on("close", () => {
        hungUp = true;
      });
      for (let i = 0; i < 256 && !hungUp; i++)
        if (!res.write(piece)) await new Promise((resolve) => res.once("drain", resolve));
      if (!hungUp) res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const web = new WebToolSet({ allow: "127.0.0.1/32", maxBytes: 100_000 });
      const { value: page, growth } = await peakGrowth(() =>
        web.fetchPage(
          `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
          new AbortController().signal,
        ),
      );
      expect(page.truncated).toBe(true);
      expect(page.text).toContain("[page cut: only the first 100000 bytes were read]");
      expect(growth).toBeLessThan(MAX_RSS_GROWTH);
      await expect.poll(() => hungUp).toBe(true);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
