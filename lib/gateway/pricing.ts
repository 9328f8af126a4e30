import Big from "big.js";
import priceTable from "./prices.json";
import type { Usage } from "./types";

/** USD per 1M tokens, as decimal strings so nothing is ever a float. */
export type ModelPrice = { input: string; cachedInput?: string; cacheWrite?: string; output: string };
export type PriceTable = Record<string, ModelPrice>;

export const SHIPPED_PRICES: PriceTable = priceTable.models;
export const SHIPPED_PRICES_AS_OF: string = priceTable.asOf;

/**
 * Finds the price of a served model: `provider/model` first, then the model name, then the longest key the
 * model name starts with (so "gpt-4o-2024-08-06" is priced as "gpt-4o", and "gpt-4o-mini-…" as "gpt-4o-mini").
 */
export function findPrice(prices: PriceTable, provider: string, model: string): ModelPrice | undefined {
  // Own keys only: a served model named "constructor" has no price, rather than Object's constructor as one.
  const at = (key: string) => (Object.hasOwn(prices, key) ? prices[key] : undefined);
  const exact = at(`${provider}/${model}`) ?? at(model);
  if (exact) return exact;
  let best: string | undefined;
  for (const key of Object.keys(prices)) {
    if (key.includes("/")) continue;
    if (model.startsWith(key) && (!best || key.length > best.length)) best = key;
  }
  return best ? at(best) : undefined;
}

const PER_TOKEN = new Big(1_000_000);

/**
 * Exact cost in USD as a decimal string. Cached input falls back to the input price and cache writes to the
 * input price when the table has no separate price for them (the provider then bills them as input).
 */
export function costOf(usage: Usage, price: ModelPrice): string {
  const cached = price.cachedInput ?? price.input;
  const write = price.cacheWrite ?? price.input;
  const total = new Big(usage.inputTokens)
    .times(price.input)
    .plus(new Big(usage.cachedInputTokens).times(cached))
    .plus(new Big(usage.cacheWriteTokens).times(write))
    .plus(new Big(usage.outputTokens).times(price.output))
    .div(PER_TOKEN);
  return total.toFixed();
}

/** Adds decimal strings exactly (for summing the cost of several round trips). */
export function addCost(a: string | null, b: string | null): string | null {
  // One unpriced round trip makes the total unknown: a partial sum would understate the cost.
  if (a === null || b === null) return null;
  return new Big(a).plus(b).toFixed();
}
