import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  apiBodyLimits,
  appBodyLimits,
  BodyRefused,
  jsonDepthExceeds,
  parseJsonWithin,
  readBodyText,
} from "@/lib/http/limits";
import { readJson, route } from "@/lib/http/route";

const nested = (levels: number, leaf = "1") => "[".repeat(levels) + leaf + "]".repeat(levels);

/** A request whose body is an endless stream of `chunk`, with no Content-Length, counting what was pulled. */
function endlessRequest(chunk = new Uint8Array(64 * 1024).fill(0x20)) {
  const pulled = { bytes: 0 };
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulled.bytes += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  const req = new Request("http://x/", { method: "POST", body, duplex: "half" } as RequestInit);
  return { req, pulled };
}

describe("body size and JSON depth limits", () => {
  it("refuses by Content-Length before reading a byte", async () => {
    const req = new Request("http://x/", {
      method: "POST",
      body: "{}",
      headers: { "content-length": String(20 * 1024 * 1024) },
    });
    await expect(readBodyText(req, 1024)).rejects.toMatchObject({ status: 413, reason: "too_large" });
  });

  it("refuses an endless body with no Content-Length once it passes the limit, without reading the rest", async () => {
    const { req, pulled } = endlessRequest();
    const error = await readBodyText(req, 1024 * 1024).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BodyRefused);
    expect(error).toMatchObject({ status: 413, message: expect.stringContaining("1 MB") });
    // It stopped within a few chunks of the limit (a stream may read ahead by its queue's high-water mark).
    expect(pulled.bytes).toBeLessThan(2 * 1024 * 1024);
  });

  it("counts nesting without recursion, ignoring brackets inside strings", () => {
    expect(jsonDepthExceeds(nested(64), 64)).toBe(false);
    expect(jsonDepthExceeds(nested(65), 64)).toBe(true);
    expect(jsonDepthExceeds(`{"a":"${"[".repeat(500)}\\"{{{"}`, 2)).toBe(false);
    expect(() => parseJsonWithin(nested(5000), 64)).toThrow(/more than 64 levels/);
    expect(parseJsonWithin('{"a":[1,{"b":2}]}', 64)).toEqual({ a: [1, { b: 2 }] });
    expect(() => parseJsonWithin("{oops", 64)).toThrow(/must be JSON/);
  });

  it("reads its limits from the environment, falling back to the defaults on nonsense", () => {
    expect(apiBodyLimits({})).toMatchObject({ maxBytes: 10 * 1024 * 1024, maxDepth: 64 });
    expect(appBodyLimits({})).toEqual({ maxBytes: 1024 * 1024, maxDepth: 64 });
    expect(apiBodyLimits({ MAX_BODY_BYTES: "2048", MAX_JSON_DEPTH: "8" })).toMatchObject({
      maxBytes: 2048,
      maxDepth: 8,
    });
    expect(apiBodyLimits({ MAX_BODY_BYTES: "-1", MAX_JSON_DEPTH: "lots" })).toEqual(apiBodyLimits({}));
  });
});

describe("the app's JSON routes", () => {
  const handler = route(async (req) => Response.json(await readJson(req, z.object({}).loose())));
  const post = (init: RequestInit) =>
    handler(new Request("http://x/", { method: "POST", ...init }), { params: Promise.resolve({}) });

  it("answer a body over the size limit with 413 in the one error shape", async () => {
    const res = await post({ body: JSON.stringify({ pad: "x".repeat(1024 * 1024 + 1) }) });
    expect(res.status).toBe(413);
    const body = await res.json();
    expect(body.error).toMatchObject({ code: "payload_too_large", message: expect.stringContaining("1 MB") });
    expect(body.error.requestId).toBe(res.headers.get("x-request-id"));
  });

  it("answer deeply nested JSON with 400, not a stack overflow", async () => {
    const res = await post({ body: `{"a":${nested(5000)}}` });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatchObject({
      code: "bad_request",
      message: expect.stringMatching(/64 levels/),
    });
  });

  it("mint their own request id; a client's x-request-id is never used as ours", async () => {
    const res = await post({ body: "{}", headers: { "x-request-id": "client-chosen-id" } });
    const ours = res.headers.get("x-request-id");
    expect(ours).not.toBe("client-chosen-id");
    expect(ours).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/); // a UUIDv7
    const refused = await post({ body: "{oops", headers: { "x-request-id": "client-chosen-id" } });
    expect((await refused.json()).error.requestId).not.toBe("client-chosen-id");
  });
});
