import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { serveFetchHandler } from "@/server/serve";
import { postEndless } from "../helpers/endless-body";

describe("the lean server's node:http adapter", () => {
  let server: Server;
  let base: string;
  const handled: string[] = [];
  beforeAll(async () => {
    server = createServer(
      serveFetchHandler(
        async (req) => {
          handled.push(new URL(req.url).pathname);
          const url = new URL(req.url);
          if (url.pathname === "/throw") throw new Error("boom");
          if (url.pathname === "/sse")
            return new Response("data: a\n\ndata: b\n\n", {
              headers: { "content-type": "text/event-stream" },
            });
          return Response.json({ method: req.method, body: req.method === "POST" ? await req.text() : null });
        },
        { maxBodyBytes: 1024 * 1024 },
      ),
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

  it("refuses an endless body with 413 in OpenAI's shape while it streams in, never calling the handler", async () => {
    const res = await postEndless(`${base}/endless`);
    expect(res.ended).toBe(false);
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body).error).toMatchObject({
      code: "request_too_large",
      type: "invalid_request_error",
    });
    expect(res.body).toContain("1 MB");
    expect(res.headers["x-request-id"]).toBeTruthy();
    expect(handled).not.toContain("/endless");
  });

  it("refuses a declared Content-Length over the limit at once, and a body at the limit passes", async () => {
    const big = await fetch(`${base}/declared`, { method: "POST", body: "x".repeat(1024 * 1024 + 1) });
    expect(big.status).toBe(413);
    expect(handled).not.toContain("/declared");
    const fits = await fetch(`${base}/fits`, { method: "POST", body: "x".repeat(1024 * 1024) });
    expect(fits.status).toBe(200);
    expect((await fits.json()).body).toHaveLength(1024 * 1024);
  });
});
