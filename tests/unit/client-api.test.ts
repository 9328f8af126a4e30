import { describe, expect, it } from "vitest";
import { ApiError, isAbort, toApiError } from "@/lib/client/api";

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
});
