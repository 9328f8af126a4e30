import Big from "big.js";
import type { Gateway } from "@/lib/gateway/gateway";
import { costOf, findPrice } from "@/lib/gateway/pricing";
import type { ChatRequest } from "@/lib/gateway/types";

/** Output tokens reserved for a call that sets no max_tokens (TOLLGATE_RESERVE_OUTPUT_TOKENS). */
export const reservedOutputTokens = () => Number(process.env.TOLLGATE_RESERVE_OUTPUT_TOKENS ?? 1024);

/**
 * What a call may cost at most, reserved against budgets before it is sent: its input at ~3 characters a
 * token (tokenizers average about 4 in English, so this errs high), its max_tokens of output, priced as the
 * dearest candidate of its alias. Unpriced candidates count 0; the settled cost replaces the estimate.
 */
export function estimateCost(gateway: Gateway, request: ChatRequest & { model: string }): string {
  const alias = gateway.config.models[request.model];
  if (!alias) return "0";
  const chars =
    JSON.stringify(request.messages).length + (request.tools ? JSON.stringify(request.tools).length : 0);
  const usage = {
    inputTokens: Math.ceil(chars / 3),
    cachedInputTokens: 0,
    cacheWriteTokens: 0,
    outputTokens: request.maxTokens ?? reservedOutputTokens(),
    reasoningTokens: 0,
  };
  let dearest = new Big(0);
  for (const candidate of alias.candidates) {
    const price = findPrice(gateway.config.prices, candidate.provider, candidate.model);
    if (!price) continue;
    const cost = new Big(costOf(usage, price));
    if (cost.gt(dearest)) dearest = cost;
  }
  return dearest.toFixed();
}
