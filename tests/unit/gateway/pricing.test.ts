import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  addCost,
  costOf,
  findPrice,
  findServedPrice,
  lookupPrice,
  type ModelPrice,
  PRICE_CATALOG,
  unpricedCandidates,
} from "@/lib/gateway/pricing";
import type { Usage } from "@/lib/gateway/types";

const usage = (u: Partial<Usage>): Usage => ({
  inputTokens: 0,
  cachedInputTokens: 0,
  cacheWriteTokens: 0,
  outputTokens: 0,
  reasoningTokens: 0,
  ...u,
});
const openai = { name: "main", type: "openai" } as const;
const anthropic = { name: "claude", type: "anthropic" } as const;
const local = { name: "local", type: "openai-compatible" } as const;

describe("the price catalog", () => {
  it("records the installed catalog's version, so an upgrade must update its as-of date too", () => {
    const installed = JSON.parse(
      readFileSync(path.join(process.cwd(), "node_modules/@pydantic/genai-prices/package.json"), "utf8"),
    ) as { version: string };
    expect(PRICE_CATALOG.source).toBe("@pydantic/genai-prices");
    expect(PRICE_CATALOG.version).toBe(installed.version);
    expect(PRICE_CATALOG.asOf).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it("prices OpenAI and Anthropic models, dated snapshots by their family", () => {
    // genai-prices 0.1.8: gpt-4o input 2.5, cache read 1.25, output 10 per 1M.
    expect(findPrice({}, openai, "gpt-4o")).toEqual({ input: "2.5", cachedInput: "1.25", output: "10" });
    expect(findPrice({}, openai, "gpt-4o-2024-08-06")).toEqual(findPrice({}, openai, "gpt-4o"));
    expect(findPrice({}, openai, "gpt-4o-mini")).toEqual({
      input: "0.15",
      cachedInput: "0.075",
      output: "0.6",
    });
    expect(findPrice({}, anthropic, "claude-sonnet-4-5-20250929")).toEqual(
      findPrice({}, anthropic, "claude-sonnet-4-5"),
    );
    expect(findPrice({}, anthropic, "claude-haiku-4-5")).toEqual({
      input: "1",
      cachedInput: "0.1",
      cacheWrite: "1.25",
      output: "5",
    });
    expect(lookupPrice({}, anthropic, "claude-sonnet-4-5-20250929")?.source).toEqual({
      kind: "catalog",
      id: "anthropic/claude-sonnet-4-5",
    });
  });

  it("prices embeddings (input only) and finds a provider's model by its id when the provider is not a vendor", () => {
    expect(findPrice({}, openai, "text-embedding-3-small")).toEqual({ input: "0.02", output: "0" });
    expect(findPrice({}, local, "gpt-4o-mini")).toEqual(findPrice({}, openai, "gpt-4o-mini"));
    // By name only: a catalog provider id, else the model id decides.
    expect(findPrice({}, "openai", "gpt-4.1")).toEqual({ input: "2", cachedInput: "0.5", output: "8" });
    expect(findPrice({}, "up", "gpt-4.1")).toEqual({ input: "2", cachedInput: "0.5", output: "8" });
  });

  it("applies the price history at the call's date", () => {
    // o3: $10 in / $40 out until 2025-06-10, then $2 / $8 (cache read $0.50 throughout).
    expect(findPrice({}, openai, "o3", new Date("2025-06-09T23:59:59Z"))).toEqual({
      input: "10",
      cachedInput: "0.5",
      output: "40",
    });
    expect(findPrice({}, openai, "o3", new Date("2025-06-10T00:00:00Z"))).toEqual({
      input: "2",
      cachedInput: "0.5",
      output: "8",
    });
  });

  it("prices a call above 200k input tokens at Claude Sonnet 4.5's long-context tier", () => {
    const sonnet = findPrice({}, anthropic, "claude-sonnet-4-5")!;
    expect(sonnet.tiers).toEqual([
      { aboveInputTokens: 200_000, input: "6", cachedInput: "0.6", cacheWrite: "7.5", output: "22.5" },
    ]);
    // 200,000 tokens of input in all is still the base tier ($3 in, $0.30 cache read, $3.75 write, $15 out):
    // (100,000 × 3 + 90,000 × 0.3 + 10,000 × 3.75 + 1,000 × 15) / 1M = (300000 + 27000 + 37500 + 15000) / 1M
    expect(
      costOf(
        usage({
          inputTokens: 100_000,
          cachedInputTokens: 90_000,
          cacheWriteTokens: 10_000,
          outputTokens: 1_000,
        }),
        sonnet,
      ),
    ).toBe("0.3795");
    // One more cached token crosses it: every token at the tier's rates ($6, $0.60, $7.50, $22.50):
    // (100,000 × 6 + 90,001 × 0.6 + 10,000 × 7.5 + 1,000 × 22.5) / 1M = (600000 + 54000.6 + 75000 + 22500) / 1M
    expect(
      costOf(
        usage({
          inputTokens: 100_000,
          cachedInputTokens: 90_001,
          cacheWriteTokens: 10_000,
          outputTokens: 1_000,
        }),
        sonnet,
      ),
    ).toBe("0.7515006");
  });

  it("lets the config's overrides win: provider/model, then model, then the longest prefix", () => {
    const overrides = {
      "azure/gpt-4o": { input: "9", output: "9" },
      "gpt-4o": { input: "3", output: "11" },
      gpt: { input: "1", output: "1" },
    };
    expect(findPrice(overrides, { name: "azure", type: "openai" }, "gpt-4o")).toEqual({
      input: "9",
      output: "9",
    });
    expect(findPrice(overrides, openai, "gpt-4o")).toEqual({ input: "3", output: "11" });
    expect(findPrice(overrides, openai, "gpt-4o-2024-08-06")).toEqual({ input: "3", output: "11" });
    expect(findPrice(overrides, openai, "gpt-4.1")).toEqual({ input: "1", output: "1" });
    expect(lookupPrice(overrides, openai, "gpt-4.1")?.source).toEqual({ kind: "override", key: "gpt" });
  });

  it("prices what was served: an override of either the served or the candidate model beats the catalog", () => {
    const overrides = { "main/gpt-4o-mini": { input: "1", output: "2" } };
    expect(findServedPrice(overrides, openai, "gpt-4o-mini-2024-07-18", "gpt-4o-mini")).toEqual({
      input: "1",
      output: "2",
    });
    expect(findServedPrice({}, openai, "gpt-4o-mini-2024-07-18", "gpt-4o-mini")).toEqual(
      findPrice({}, openai, "gpt-4o-mini"),
    );
    // An answer naming a model the catalog does not know is priced as the candidate.
    expect(findServedPrice({}, openai, "ft:custom-thing", "gpt-4.1")).toEqual(
      findPrice({}, openai, "gpt-4.1"),
    );
    expect(findServedPrice({}, local, "qwen3:8b", "qwen3:8b")).toBeUndefined();
  });

  it("has no price for an unknown model, nor for names on Object.prototype; the offline model is free", () => {
    expect(findPrice({}, local, "llama3.1:8b")).toBeUndefined();
    expect(findPrice({}, openai, "no-such-model")).toBeUndefined();
    expect(findPrice({}, anthropic, "gpt-4o")).toBeUndefined();
    expect(findPrice({}, openai, "constructor")).toBeUndefined();
    expect(findPrice({}, "constructor", "__proto__")).toBeUndefined();
    expect(findPrice({}, { name: "offline", type: "offline" }, "offline-demo")).toEqual({
      input: "0",
      output: "0",
    });
  });

  it("looks a model up in the catalog once, not on every call", () => {
    findPrice({}, openai, "gpt-4o-mini-2024-07-18");
    const started = performance.now();
    for (let i = 0; i < 10_000; i++) findPrice({}, openai, "gpt-4o-mini-2024-07-18");
    // A cached lookup costs microseconds; a catalog scan costs far more than 20 µs.
    expect((performance.now() - started) / 10_000).toBeLessThan(0.02);
  });
});

describe("costOf", () => {
  it("prices OpenAI cached input at the cached rate, to the last decimal", () => {
    // gpt-4o: input $2.50, cached $1.25, output $10 per 1M.
    // 1,234 uncached × 2.5 = 3085; 2,048 cached × 1.25 = 2560; 517 output × 10 = 5170; 10815 / 1M = 0.010815
    const cost = costOf(
      usage({ inputTokens: 1234, cachedInputTokens: 2048, outputTokens: 517 }),
      findPrice({}, openai, "gpt-4o")!,
    );
    expect(cost).toBe("0.010815");
  });

  it("prices Anthropic cache reads and cache writes at their own rates, to the last decimal", () => {
    // claude-sonnet-4-5 (191,107 input tokens in all: below the 200k tier): input $3, cache read $0.30,
    // cache write $3.75, output $15 per 1M.
    // 21 × 3 = 63; 188,086 × 0.3 = 56425.8; 3,000 × 3.75 = 11250; 393 × 15 = 5895; 73633.8 / 1M = 0.0736338
    const cost = costOf(
      usage({ inputTokens: 21, cachedInputTokens: 188_086, cacheWriteTokens: 3000, outputTokens: 393 }),
      findPrice({}, anthropic, "claude-sonnet-4-5")!,
    );
    expect(cost).toBe("0.0736338");
  });

  it("counts reasoning tokens once: at the output rate, or at their own rate when there is one", () => {
    // gpt-5 has no separate reasoning rate: 1,000 output tokens of which 800 reasoning are 1,000 at $10.
    expect(costOf(usage({ outputTokens: 1000, reasoningTokens: 800 }), findPrice({}, openai, "gpt-5")!)).toBe(
      "0.01",
    );
    // A price with a reasoning rate: 200 output at $8 + 800 reasoning at $3 = 1600 + 2400 = 4000 / 1M.
    const price: ModelPrice = { input: "2", output: "8", reasoning: "3" };
    expect(costOf(usage({ outputTokens: 1000, reasoningTokens: 800 }), price)).toBe("0.004");
  });

  it("falls back to the input rate for cached input and cache writes without a rate of their own", () => {
    // 10 uncached + 20 cached + 30 written, all at $2: 120 / 1M.
    expect(
      costOf(usage({ inputTokens: 10, cachedInputTokens: 20, cacheWriteTokens: 30 }), {
        input: "2",
        output: "8",
      }),
    ).toBe("0.00012");
  });

  it("never goes through a float: tiny costs stay exact decimals", () => {
    // gpt-5-nano cached input $0.005 per 1M: 3 tokens = 0.000000015
    expect(costOf(usage({ cachedInputTokens: 3 }), findPrice({}, openai, "gpt-5-nano")!)).toBe("0.000000015");
    expect(addCost("0.1", "0.2")).toBe("0.3");
    expect(addCost("0.1", null)).toBeNull();
  });
});

describe("unpricedCandidates", () => {
  it("lists every alias candidate that neither an override nor the catalog prices", () => {
    const config = {
      providers: {
        main: { type: "openai" as const },
        local: { type: "openai-compatible" as const },
        offline: { type: "offline" as const },
      },
      models: {
        default: {
          candidates: [
            { provider: "main", model: "gpt-4o-mini" },
            { provider: "local", model: "llama3.1" },
            { provider: "local", model: "qwen3:8b" },
          ],
        },
        demo: { candidates: [{ provider: "offline", model: "offline-demo" }] },
      },
      prices: { "llama3.1": { input: "0", output: "0" } },
    };
    expect(unpricedCandidates(config)).toEqual([{ alias: "default", provider: "local", model: "qwen3:8b" }]);
  });
});
