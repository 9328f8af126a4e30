import { describe, expect, it, vi } from "vitest";

// Next gives every bundle its own copy of a module: the container's objects are built in instrumentation's bundle
// and throw that copy's classes into a route's catch, whose own copy must still recognise them.
describe("error classes recognised across copies of their module", () => {
  it("an AppError from another copy of lib/core/errors is an AppError, and answers with its status", async () => {
    const first = await import("@/lib/core/errors/app-error");
    vi.resetModules();
    const second = await import("@/lib/core/errors/app-error");
    expect(second.AppError).not.toBe(first.AppError);
    const thrown = new first.AppError("validation_failed", "unknown filter", {
      fields: { "f.nope": ["no"] },
    });
    expect(thrown instanceof second.AppError).toBe(true);
    expect(second.toErrorResponse(thrown, "req").status).toBe(422);
    expect(new Error("plain") instanceof second.AppError).toBe(false);
  });

  it("a GatewayError from another copy of lib/gateway/errors keeps its class", async () => {
    const first = await import("@/lib/gateway/errors");
    vi.resetModules();
    const second = await import("@/lib/gateway/errors");
    expect(second.GatewayError).not.toBe(first.GatewayError);
    const thrown = new first.GatewayError("rate_limited", "slow down", 429);
    expect(thrown instanceof second.GatewayError).toBe(true);
    expect(second.classify(thrown, new AbortController().signal).errorClass).toBe("rate_limited");
  });
});
