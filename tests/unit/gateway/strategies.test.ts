import { describe, expect, it } from "vitest";
import type { AliasConfig, Candidate } from "@/lib/gateway/config";
import { DeploymentStats, orderCandidates, type RoutingContext } from "@/lib/gateway/strategies";

const a: Candidate = { provider: "oa", model: "gpt-4o" };
const b: Candidate = { provider: "oa", model: "gpt-4o-mini" };
const c: Candidate = { provider: "an", model: "claude-haiku-4-5" };

function context(overrides: Partial<RoutingContext> = {}): RoutingContext & { clock: { t: number } } {
  const clock = { t: 1_000_000 };
  return {
    clock,
    config: { providers: { oa: { type: "openai" }, an: { type: "anthropic" } }, prices: {} },
    stats: new DeploymentStats(() => clock.t),
    random: () => 0,
    now: () => clock.t,
    coolingDown: () => false,
    size: () => ({ inputTokens: 1_000, outputTokens: 500 }),
    ...overrides,
  };
}
const order = (spec: AliasConfig, ctx: RoutingContext) => orderCandidates(spec, ctx).map((x) => x.model);

describe("routing strategies", () => {
  it("fallback keeps the listed order; every strategy keeps the others as fallbacks, in order", () => {
    expect(order({ candidates: [a, b, c] }, context())).toEqual([
      "gpt-4o",
      "gpt-4o-mini",
      "claude-haiku-4-5",
    ]);
    const spec: AliasConfig = { strategy: "weighted", candidates: [a, b, c] };
    expect(order(spec, context({ random: () => 0.99 }))).toEqual([
      "claude-haiku-4-5",
      "gpt-4o",
      "gpt-4o-mini",
    ]);
  });

  it("weighted picks by weight from the random draw, and never first a candidate cooling down", () => {
    const spec: AliasConfig = {
      strategy: "weighted",
      candidates: [
        { ...a, weight: 7 },
        { ...b, weight: 3 },
      ],
    };
    expect(order(spec, context({ random: () => 0.69 }))[0]).toBe("gpt-4o");
    expect(order(spec, context({ random: () => 0.7 }))[0]).toBe("gpt-4o-mini");
    const aDown = context({ random: () => 0.1, coolingDown: (x) => x.model === "gpt-4o" });
    expect(order(spec, aDown)).toEqual(["gpt-4o-mini", "gpt-4o"]);
  });

  it("least-latency tries an unmeasured candidate first, then the fastest lately, and forgets old samples", () => {
    const spec: AliasConfig = { strategy: "least-latency", candidates: [a, b] };
    const ctx = context();
    expect(order(spec, ctx)[0]).toBe("gpt-4o");
    ctx.stats.recordLatency("oa/gpt-4o", 300);
    expect(order(spec, ctx)[0]).toBe("gpt-4o-mini");
    ctx.stats.recordLatency("oa/gpt-4o-mini", 100);
    expect(order(spec, ctx)[0]).toBe("gpt-4o-mini");
    for (let i = 0; i < 3; i++) ctx.stats.recordLatency("oa/gpt-4o-mini", 900);
    expect(order(spec, ctx)[0]).toBe("gpt-4o");
    // Five minutes on, both are unmeasured again: the first listed is tried, and measured anew.
    ctx.clock.t += 5 * 60_000 + 1;
    expect(ctx.stats.meanLatency("oa/gpt-4o")).toBeUndefined();
    expect(order(spec, ctx)[0]).toBe("gpt-4o");
  });

  it("least-cost picks the cheapest for the request's size at catalog or config prices, never an unpriced one", () => {
    const spec: AliasConfig = { strategy: "least-cost", candidates: [a, c, b] };
    expect(order(spec, context())[0]).toBe("gpt-4o-mini");
    const unpriced = { provider: "oa", model: "no-such-model" };
    expect(order({ strategy: "least-cost", candidates: [unpriced, a] }, context())[0]).toBe("gpt-4o");
    // The config's price wins over the catalog's.
    const cheapA = context({
      config: {
        providers: { oa: { type: "openai" }, an: { type: "anthropic" } },
        prices: { "gpt-4o": { input: "0.01", output: "0.01" } },
      },
    });
    expect(order(spec, cheapA)[0]).toBe("gpt-4o");
    // Output-heavy requests weigh output prices: Haiku (1/5) beats gpt-4o (2.5/10) either way, mini (0.15/0.6) both.
    expect(order({ strategy: "least-cost", candidates: [a, c] }, context())[0]).toBe("claude-haiku-4-5");
  });

  it("usage-based sends to the candidate with the most of its per-minute allowance left", () => {
    const spec: AliasConfig = {
      strategy: "usage-based",
      candidates: [
        { ...a, rpm: 2 },
        { ...b, tpm: 10_000 },
      ],
    };
    const ctx = context();
    expect(order(spec, ctx)[0]).toBe("gpt-4o");
    ctx.stats.recordUsage("oa/gpt-4o", 100); // 1 of 2 requests: half left
    ctx.stats.recordUsage("oa/gpt-4o-mini", 2_000); // 8,000 of 10,000 tokens left
    expect(order(spec, ctx)[0]).toBe("gpt-4o-mini");
    ctx.stats.recordUsage("oa/gpt-4o-mini", 6_000); // 2,000 left: a fifth
    expect(order(spec, ctx)[0]).toBe("gpt-4o");
    ctx.clock.t += 60_001; // a new minute: everything left again, the first listed first
    expect(ctx.stats.lastMinute("oa/gpt-4o")).toEqual({ requests: 0, tokens: 0 });
    expect(order(spec, ctx)[0]).toBe("gpt-4o");
  });
});
