import { describe, expect, it } from "vitest";
import { rateLimitHeaders, resetDuration } from "@/lib/pipeline/rate-limit-headers";

describe("rateLimitHeaders", () => {
  it("gives OpenAI's six headers in OpenAI's order when both kinds are limited", () => {
    expect(
      rateLimitHeaders({
        type: "rate_limit_state",
        requests: { limit: 60, remaining: 59, resetSeconds: 20 },
        tokens: { limit: 150_000, remaining: 149_984, resetSeconds: 60 },
      }),
    ).toEqual([
      ["x-ratelimit-limit-requests", "60"],
      ["x-ratelimit-limit-tokens", "150000"],
      ["x-ratelimit-remaining-requests", "59"],
      ["x-ratelimit-remaining-tokens", "149984"],
      ["x-ratelimit-reset-requests", "20s"],
      ["x-ratelimit-reset-tokens", "1m0s"],
    ]);
  });

  it("leaves out a kind no limit covers, and gives nothing when none does", () => {
    expect(
      rateLimitHeaders({ type: "rate_limit_state", tokens: { limit: 100, remaining: 0, resetSeconds: 7 } }),
    ).toEqual([
      ["x-ratelimit-limit-tokens", "100"],
      ["x-ratelimit-remaining-tokens", "0"],
      ["x-ratelimit-reset-tokens", "7s"],
    ]);
    expect(rateLimitHeaders({ type: "rate_limit_state" })).toEqual([]);
  });

  it("says what a run has left, for the measures its ceilings set only", () => {
    expect(
      rateLimitHeaders({ type: "rate_limit_state", run: { usd: "0.25", calls: 3, seconds: 40 } }),
    ).toEqual([
      ["x-tollgate-run-remaining-usd", "0.25"],
      ["x-tollgate-run-remaining-calls", "3"],
      ["x-tollgate-run-remaining-seconds", "40"],
    ]);
    expect(rateLimitHeaders({ type: "rate_limit_state", run: { tokens: 0 } })).toEqual([
      ["x-tollgate-run-remaining-tokens", "0"],
    ]);
  });
});

describe("resetDuration writes a reset as OpenAI does (Go durations)", () => {
  it.each([
    [1, "1s"],
    [20, "20s"],
    [60, "1m0s"],
    [360, "6m0s"],
    [90.5, "1m30.5s"],
    [3723, "1h2m3s"],
    [0.012, "12ms"],
    [1.5, "1.5s"],
    [0, "0s"],
  ])("%s seconds is %s", (seconds, text) => {
    expect(resetDuration(seconds)).toBe(text);
  });
});
