import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_WHOLE_BODY_BYTES, nodeFetch, setMaxWholeBodyBytes } from "@/lib/gateway/adapters/node-fetch";
import { GatewayError } from "@/lib/gateway/errors";

describe("the SDKs' node:http transport", () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = "";
      req.on("data", (c) => {
        body += c;
      });
      req.on("end", () => {
        if (req.url === "/gzip") {
          res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
          res.end(
            gzipSync(JSON.stringify({ echoed: body, method: req.method, auth: req.headers.authorization })),
          );
        } else if (req.url === "/sse") {
          res.writeHead(200, { "content-type": "text/event-stream" });
          res.write("data: one\n\n");
          setTimeout(() => res.end("data: two\n\n"), 20);
        } else if (req.url === "/hang") {
          res.writeHead(200, { "content-type": "text/event-stream" });
          res.write("data: first\n\n");
        } else if (req.url === "/bomb") {
          // 8 MiB of zeros, gzipped to a few kB: the bound applies to what it decompresses to.
          res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
          res.end(gzipSync(Buffer.alloc(8 * 2 ** 20)));
        } else if (req.url === "/empty") {
          res.writeHead(204);
          res.end();
        } else {
          res.writeHead(404, { "content-type": "application/json" });
          res.end('{"error":"nope"}');
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("sends the method, headers and body, and decompresses a gzip answer", async () => {
    let sawHeaders = false;
    const res = await nodeFetch(
      `${base}/gzip`,
      { method: "POST", headers: { authorization: "Bearer k" }, body: '{"q":1}' },
      () => {
        sawHeaders = true;
      },
    );
    expect(sawHeaders).toBe(true);
    expect(res.headers.get("content-encoding")).toBeNull();
    expect(await res.json()).toEqual({ echoed: '{"q":1}', method: "POST", auth: "Bearer k" });
  });

  it("keeps an event stream a stream, and an error status with its body", async () => {
    const res = await nodeFetch(`${base}/sse`);
    expect(await res.text()).toBe("data: one\n\ndata: two\n\n");
    const missing = await nodeFetch(`${base}/missing`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: "nope" });
    expect((await nodeFetch(`${base}/empty`)).status).toBe(204);
  });

  it("rejects with the signal's reason on abort, before and during a stream", async () => {
    const before = new AbortController();
    before.abort(new Error("stopped early"));
    await expect(nodeFetch(`${base}/sse`, { signal: before.signal })).rejects.toThrow("stopped early");

    const during = new AbortController();
    const res = await nodeFetch(`${base}/hang`, { signal: during.signal });
    const reader = res.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("data: first\n\n");
    setTimeout(() => during.abort(new Error("stopped mid-stream")), 10);
    await expect(reader.read()).rejects.toThrow("stopped mid-stream");
  });

  it("fails a refused connection with a TypeError carrying the cause, as fetch does", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = await nodeFetch(`http://127.0.0.1:${port}/`).catch((e) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as TypeError & { cause: { code: string } }).cause.code).toBe("ECONNREFUSED");
  });

  it("refuses a whole answer that decompresses past the bound (a gzip bomb), as a provider failure", async () => {
    const bound = MAX_WHOLE_BODY_BYTES;
    setMaxWholeBodyBytes(2 ** 20);
    try {
      const error = await nodeFetch(`${base}/bomb`).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(GatewayError);
      expect(error).toMatchObject({ errorClass: "server", status: 502 });
      expect((error as Error).message).toMatch(/larger than 1 MiB/);
    } finally {
      setMaxWholeBodyBytes(bound);
    }
    // Under the bound the same answer is read whole.
    expect((await (await nodeFetch(`${base}/bomb`)).arrayBuffer()).byteLength).toBe(8 * 2 ** 20);
  });
});
