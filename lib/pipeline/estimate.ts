import Big from "big.js";
import type { Gateway } from "@/lib/gateway/gateway";
import { costOf, findPrice, type PriceTable, unitCostOf } from "@/lib/gateway/pricing";
import { type ChatRequest, IMAGE_TOKEN_ESTIMATE, imageCount } from "@/lib/gateway/types";
import { assumedPriceOf } from "./assumed-prices";
import { DEFAULT_MAX_OUTPUT_TOKENS } from "./policy";

/**
 * Input tokens a request may be billed for, counted high: one per 2 UTF-8 bytes of its messages and tools.
 * Tokenizers average about 4 characters a token in English; code, digits and non-Latin scripts come closer to
 * 2 bytes a token, and a character-based count (3 a token) fell short for them. An image counts as
 * IMAGE_TOKEN_ESTIMATE, not as its base64 text.
 */
export function estimateInputTokens(request: ChatRequest): number {
  const images = imageCount(request.messages);
  const messages = images
    ? request.messages.map((m) => (m.role === "user" && m.images ? { ...m, images: undefined } : m))
    : request.messages;
  const bytes =
    Buffer.byteLength(JSON.stringify(messages)) +
    (request.tools ? Buffer.byteLength(JSON.stringify(request.tools)) : 0);
  return Math.ceil(bytes / 2) + images * IMAGE_TOKEN_ESTIMATE;
}

/**
 * The most a call may cost, reserved against budgets before it is sent: its input counted high, its
 * max_tokens of output (or `outputCeiling` when it sets none), priced as the dearest candidate of its alias.
 * Candidates without a price count at the tenant's assumed price (`assumed`); under a hard budget a call with a
 * candidate priced neither way is refused before this. The settled cost replaces the estimate. An images or audio
 * call (`media`) reserves its units: `n` images at the requested size and quality, the audio's length bounded
 * from its size, the characters it speaks.
 */
export function estimateCost(
  gateway: Gateway,
  request: ChatRequest & { model: string },
  outputCeiling = DEFAULT_MAX_OUTPUT_TOKENS,
  assumed: PriceTable = {},
): string {
  const alias = gateway.config.models[request.model];
  if (!alias) return "0";
  const usage = {
    inputTokens: estimateInputTokens(request),
    cachedInputTokens: 0,
    cacheWriteTokens: 0,
    outputTokens: request.maxTokens ?? outputCeiling,
    reasoningTokens: 0,
  };
  let dearest = new Big(0);
  for (const candidate of alias.candidates) {
    const provider = gateway.config.providers[candidate.provider];
    const price =
      (provider &&
        findPrice(
          gateway.config.prices,
          { name: candidate.provider, type: provider.type },
          candidate.model,
        )) ||
      assumedPriceOf(assumed, candidate.provider, candidate.model)?.price;
    if (!price) continue;
    // Images and audio: their units at the price's unit rates where it has them, else their tokens, counted high.
    const byUnits = request.media ? unitCostOf(request.media, price) : null;
    const cost = new Big(byUnits ?? costOf(usage, price));
    if (cost.gt(dearest)) dearest = cost;
  }
  return dearest.toFixed();
}
