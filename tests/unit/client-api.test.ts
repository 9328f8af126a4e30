import { describe, expect, it } from "vitest";
import { ApiError, errorFromResponse, isAbort, toApiError } from "@/lib/client/api";

describe("the browser's fetch/error module", () => {
  it("tells a call stopped by its AbortSignal from a failure, by the DOMException's code", async () => {
    const controller = new AbortController();
    controller.abort();
    const stopped = await fetch("http://127.0.0.1:9/", { signal: controller.signal }).catch(
      (e: unknown) => e,
    );
    expect(isAbort(stopped)).toBe(true);
    expect(isAbort(new DOMException("too slow", "TimeoutError"))).toBe(false);
    expect(isAbort(new Error("AbortError"))).toBe(false);
  });

  it("keeps our errors as they are and makes anything else a network failure (status 0)", () => {
    const ours = new ApiError(422, "the request is invalid");
    expect(toApiError(ours)).toBe(ours);
    expect(toApiError(new TypeError("failed to fetch"))).toMatchObject({
      status: 0,
      message: "failed to fetch",
    });
  });

  it("reads an error body's code, reason and fields, and says the status when there is no body", async () => {
    const body = {
      error: { code: "conflict", reason: "review_lease_lost", message: "your claim lapsed", requestId: "r1" },
    };
    const lost = await errorFromResponse(new Response(JSON.stringify(body), { status: 409 }));
    expect(lost).toMatchObject({
      status: 409,
      code: "conflict",
      reason: "review_lease_lost",
      requestId: "r1",
    });
    expect(lost.message).toBe("your claim lapsed");
    const bare = await errorFromResponse(new Response("oops", { status: 502, statusText: "Bad Gateway" }));
    expect(bare).toMatchObject({ status: 502, message: "502 Bad Gateway", reason: undefined });
  });
});
