import { describe, expect, it } from "vitest";
import { addCost, costOf, findPrice, SHIPPED_PRICES, SHIPPED_PRICES_AS_OF } from "@/lib/gateway/pricing";
import type { Usage } from "@/lib/gateway/types";

const usage = (u: Partial<Usage>): Usage => ({
  inputTokens: 0,
  cachedInputTokens: 0,
  cacheWriteTokens: 0,
  outputTokens: 0,
  reasoningTokens: 0,
  ...u,
});

describe("pricing", () => {
  it("ships a dated price table", () => {
    expect(SHIPPED_PRICES_AS_OF).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(SHIPPED_PRICES["gpt-4o"]).toBeDefined();
    expect(SHIPPED_PRICES["claude-sonnet-4-5"]).toBeDefined();
  });

  it("prices a dated model id by its family, the longest matching name winning", () => {
    expect(findPrice(SHIPPED_PRICES, "openai", "gpt-4o-2024-08-06")).toBe(SHIPPED_PRICES["gpt-4o"]);
    expect(findPrice(SHIPPED_PRICES, "openai", "gpt-4o-mini-2024-07-18")).toBe(SHIPPED_PRICES["gpt-4o-mini"]);
    expect(findPrice(SHIPPED_PRICES, "anthropic", "claude-sonnet-4-5-20250929")).toBe(
      SHIPPED_PRICES["claude-sonnet-4-5"],
    );
    expect(findPrice(SHIPPED_PRICES, "local", "llama3.1:8b")).toBeUndefined();
    const custom = { ...SHIPPED_PRICES, "azure/gpt-4o": { input: "9", output: "9" } };
    expect(findPrice(custom, "azure", "gpt-4o")).toEqual({ input: "9", output: "9" });
  });

  it("prices OpenAI cached input at the cached rate, to the last decimal", () => {
    // gpt-4o: input $2.50, cached $1.25, output $10.00 per 1M.
    // 1,234 uncached input × 2.50 = 3085; 2,048 cached × 1.25 = 2560; 517 output × 10 = 5170;
    // (3085 + 2560 + 5170) / 1,000,000 = 0.010815
    const cost = costOf(
      usage({ inputTokens: 1234, cachedInputTokens: 2048, outputTokens: 517 }),
      SHIPPED_PRICES["gpt-4o"]!,
    );
    expect(cost).toBe("0.010815");
  });

  it("prices Anthropic cache reads and cache writes at their own rates, to the last decimal", () => {
    // claude-sonnet-4-5: input $3, cache read $0.30, cache write $3.75, output $15 per 1M.
    // 21 × 3 = 63; 188,086 × 0.30 = 56425.8; 3,000 × 3.75 = 11250; 393 × 15 = 5895;
    // (63 + 56425.8 + 11250 + 5895) / 1,000,000 = 0.0736338
    const cost = costOf(
      usage({ inputTokens: 21, cachedInputTokens: 188_086, cacheWriteTokens: 3000, outputTokens: 393 }),
      SHIPPED_PRICES["claude-sonnet-4-5"]!,
    );
    expect(cost).toBe("0.0736338");
  });

  it("never goes through a float: tiny costs stay exact decimals", () => {
    // gpt-5-nano cached input $0.005 per 1M: 3 tokens = 0.000000015
    expect(costOf(usage({ cachedInputTokens: 3 }), SHIPPED_PRICES["gpt-5-nano"]!)).toBe("0.000000015");
    expect(addCost("0.1", "0.2")).toBe("0.3");
    expect(addCost("0.1", null)).toBeNull();
  });
});
