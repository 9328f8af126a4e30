import { costOf, findPrice, type ModelPrice, mediaCostOf, type PriceTable } from "@/lib/gateway/pricing";
import type { Stamp } from "@/lib/gateway/types";
import type { Call, PipelineEvent, Step } from "./types";

/**
 * A tenant's assumed price for a served model: `provider/model` exactly, else the longest `provider/prefix` the
 * model starts with (so an assumed price for "acme-large" also prices the dated "acme-large-2026-05-01").
 */
export function assumedPriceOf(
  assumed: PriceTable,
  provider: string,
  model: string,
): { key: string; price: ModelPrice } | undefined {
  const exact = `${provider}/${model}`;
  if (Object.hasOwn(assumed, exact)) return { key: exact, price: assumed[exact]! };
  let best: string | undefined;
  for (const key of Object.keys(assumed)) {
    if (key.startsWith(`${provider}/`) && exact.startsWith(key) && (!best || key.length > best.length))
      best = key;
  }
  return best ? { key: best, price: assumed[best]! } : undefined;
}

/**
 * The first candidate of the call's alias that has no price: neither in the catalog or the config's overrides,
 * nor assumed by the tenant. The offline model is free. Undefined when every candidate is priced.
 */
export function unpricedCandidateOf(call: Call): { provider: string; model: string } | undefined {
  const config = call.gateway.config;
  const alias = Object.hasOwn(config.models, call.request.model)
    ? config.models[call.request.model]
    : undefined;
  for (const candidate of alias?.candidates ?? []) {
    const type = config.providers[candidate.provider]?.type;
    if (type && findPrice(config.prices, { name: candidate.provider, type }, candidate.model)) continue;
    if (assumedPriceOf(call.policy.assumedPrices, candidate.provider, candidate.model)) continue;
    return candidate;
  }
  return undefined;
}

/** The stamp of a call an unpriced model served, priced at the tenant's assumed price when it has one. */
function withAssumedPrice(stamp: Stamp, assumed: PriceTable): Stamp | undefined {
  if (stamp.costStatus !== "unpriced" || !stamp.servedProvider || !stamp.servedModel) return undefined;
  const found = assumedPriceOf(assumed, stamp.servedProvider, stamp.servedModel);
  if (!found) return undefined;
  const cost = stamp.units
    ? mediaCostOf(stamp.usage, stamp.units, found.price)
    : costOf(stamp.usage, found.price);
  if (cost === null) return undefined;
  return Object.assign({}, stamp, { cost, costStatus: "assumed" as const });
}

/**
 * Prices what an unpriced model served at the price the tenant admin assumed for it (Limits page), so the
 * budget step around it settles the real amount and the ledger records it as `assumed`. Runs only for tenants
 * that assumed a price.
 */
export function assumedPriceStep(): Step {
  const step: Step = async function* assumedPrices(call, next) {
    for await (const event of next(call)) {
      yield repriced(event, call.policy.assumedPrices) ?? event;
    }
  };
  return Object.assign(step, {
    applies: (call: Call) => Object.keys(call.policy.assumedPrices).length > 0,
  });
}

function repriced(event: PipelineEvent, assumed: PriceTable): PipelineEvent | undefined {
  if (event.type === "done") {
    const stamp = withAssumedPrice(event.response.stamp, assumed);
    return stamp ? { type: "done", response: Object.assign({}, event.response, { stamp }) } : undefined;
  }
  if (event.type === "error") {
    const stamp = withAssumedPrice(event.stamp, assumed);
    return stamp ? { type: "error", error: event.error, stamp } : undefined;
  }
  return undefined;
}
