import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonAnswer } from "@/lib/http/exchange";
import { serveApi } from "@/server/serve";
import { postEndless } from "../helpers/endless-body";

describe("the lean server's node:http adapter", () => {
  let server: Server;
  let base: string;
  const handled: string[] = [];
  /** Streams of /slow: each waits for `release` after its first chunk; `drained` says whether it ran to its end. */
  let release: () => void = () => {};
  const drained: boolean[] = [];
  beforeAll(async () => {
    server = createServer(
      serveApi(
        async (req) => {
          handled.push(req.path);
          if (req.path === "/throw") throw new Error("boom");
          if (req.path === "/sse")
            return {
              status: 200,
              headers: { "content-type": "text/event-stream" },
              body: (async function* () {
                yield "data: a\n\n";
                yield "data: b\n\n";
              })(),
            };
          if (req.path === "/slow") {
            const wait = new Promise<void>((resolve) => {
              release = resolve;
            });
            return {
              status: 200,
              headers: { "content-type": "text/event-stream" },
              body: (async function* () {
                let ran = false;
                try {
                  yield "data: first\n\n";
                  await wait;
                  yield "data: last\n\n";
                  ran = true;
                } finally {
                  drained.push(ran);
                }
              })(),
            };
          }
          const body = req.body ? Buffer.from(req.body).toString("utf8") : null;
          return jsonAnswer(200, { method: req.method, body, path: req.path });
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
    const res = await fetch(`${base}/echo/?x=1`, { method: "POST", body: '{"a":1}' });
    expect(res.headers.get("content-length")).toBe(String((await res.clone().arrayBuffer()).byteLength));
    expect(await res.json()).toEqual({ method: "POST", body: '{"a":1}', path: "/echo" });
    expect(await (await fetch(`${base}/sse`)).text()).toBe("data: a\n\ndata: b\n\n");
  });

  it("writes a stream's first chunk before the stream has ended", async () => {
    const res = await fetch(`${base}/slow`);
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe("data: first\n\n");
    release();
    let rest = "";
    for (let r = await reader.read(); !r.done; r = await reader.read())
      rest += new TextDecoder().decode(r.value);
    expect(rest).toBe("data: last\n\n");
  });

  it("reads a stream to its end when the client leaves, so the handler can record the call", async () => {
    const before = drained.length;
    const controller = new AbortController();
    const res = await fetch(`${base}/slow`, { signal: controller.signal });
    await res.body!.getReader().read();
    controller.abort();
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    await expect.poll(() => drained.length).toBe(before + 1);
    expect(drained.at(-1)).toBe(true);
  });

  it("answers 500 when the handler throws, and keeps serving", async () => {
    const res = await fetch(`${base}/throw`);
    expect(res.status).toBe(500);
    expect((await res.json()).error.type).toBe("server_error");
    expect((await fetch(`${base}/echo`)).status).toBe(200);
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
