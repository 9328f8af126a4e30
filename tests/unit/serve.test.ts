import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { serveFetchHandler } from "@/scripts/serve";

describe("the lean server's node:http adapter", () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createServer(
      serveFetchHandler(async (req) => {
        const url = new URL(req.url);
        if (url.pathname === "/throw") throw new Error("boom");
        if (url.pathname === "/sse")
          return new Response("data: a\n\ndata: b\n\n", { headers: { "content-type": "text/event-stream" } });
        return Response.json({ method: req.method, body: req.method === "POST" ? await req.text() : null });
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("passes the body through and answers JSON in one write with its length", async () => {
    const res = await fetch(`${base}/echo`, { method: "POST", body: '{"a":1}' });
    expect(res.headers.get("content-length")).toBe(String((await res.clone().arrayBuffer()).byteLength));
    expect(await res.json()).toEqual({ method: "POST", body: '{"a":1}' });
    expect(await (await fetch(`${base}/sse`)).text()).toBe("data: a\n\ndata: b\n\n");
  });

  it("answers 500 when the handler throws, and keeps serving", async () => {
    const quiet = vi.spyOn(console, "error").mockImplementation(() => {});
    const res = await fetch(`${base}/throw`);
    expect(res.status).toBe(500);
    expect((await res.json()).error.type).toBe("server_error");
    expect((await fetch(`${base}/echo`)).status).toBe(200);
    quiet.mockRestore();
  });
});
