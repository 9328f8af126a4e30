import type { AliasConfig, Candidate, GatewayConfig } from "./config";
import { findServedPrice, type ModelPrice } from "./pricing";

export type { RoutingStrategy } from "./config";

/** How much the newest latency weighs in a deployment's moving average, and how long the average counts. */
const LATENCY_WEIGHT = 0.3;
const LATENCY_WINDOW_MS = 5 * 60_000;

/**
 * Counts of the last minute, a second a slot (60 slots, reused as the seconds go round): bounded whatever the
 * rate, and O(1) to add to. The per-minute windows are the providers' (requests and tokens per minute).
 */
class MinuteCounts {
  private readonly slots = Array.from({ length: 60 }, () => ({
    second: -1,
    calls: 0,
    failures: 0,
    tokens: 0,
  }));

  add(now: number, failed: boolean, tokens: number): void {
    const second = Math.floor(now / 1000);
    const slot = this.slots[second % 60]!;
    if (slot.second !== second) {
      slot.second = second;
      slot.calls = 0;
      slot.failures = 0;
      slot.tokens = 0;
    }
    slot.calls++;
    if (failed) slot.failures++;
    slot.tokens += tokens;
  }

  total(now: number): { calls: number; failures: number; tokens: number } {
    const since = Math.floor(now / 1000) - 59;
    const sum = { calls: 0, failures: 0, tokens: 0 };
    for (const slot of this.slots)
      if (slot.second >= since) {
        sum.calls += slot.calls;
        sum.failures += slot.failures;
        sum.tokens += slot.tokens;
      }
    return sum;
  }
}

/**
 * What this process saw of each deployment: the time each recent answer took to start (a stream's first token,
 * a whole answer's end), each try's outcome and the tokens used in the last minute. Each replica keeps its own:
 * they are measurements for choosing, not limits, so they need not be shared.
 */
export class DeploymentStats {
  private readonly latency = new Map<string, { mean: number; at: number }>();
  /** By model key: the calls and tokens the usage-based strategy weighs against a candidate's rpm and tpm. */
  private readonly usage = new Map<string, MinuteCounts>();
  /** By deployment key (a key of it, when it has several): tries and failures, the routing page's error rate. */
  private readonly outcomes = new Map<string, MinuteCounts>();

  constructor(private readonly now: () => number) {}

  /**
   * An answer from the deployment started this many ms after it was asked: into an exponentially weighted moving
   * average, so one slow answer moves it at once and a slowed deployment is left within a call or two.
   */
  recordLatency(key: string, ms: number): void {
    const now = this.now();
    const last = this.latency.get(key);
    if (!last) {
      this.latency.set(key, { mean: ms, at: now });
      return;
    }
    last.mean =
      now - last.at <= LATENCY_WINDOW_MS ? LATENCY_WEIGHT * ms + (1 - LATENCY_WEIGHT) * last.mean : ms;
    last.at = now;
  }

  /** The moving average, or undefined when there is none (never tried, or not for five minutes). */
  meanLatency(key: string): number | undefined {
    const last = this.latency.get(key);
    return last && this.now() - last.at <= LATENCY_WINDOW_MS ? last.mean : undefined;
  }

  /** A try of the deployment (a key of it, when it has several) that succeeded or failed. */
  recordOutcome(key: string, ok: boolean): void {
    countsOf(this.outcomes, key).add(this.now(), !ok, 0);
  }

  /** Tries in the last minute, and how many of them failed. */
  outcomesLastMinute(key: string): { calls: number; failures: number } {
    return this.outcomes.get(key)?.total(this.now()) ?? { calls: 0, failures: 0 };
  }

  /** A call to the deployment that used this many tokens. */
  recordUsage(key: string, tokens: number): void {
    countsOf(this.usage, key).add(this.now(), false, tokens);
  }

  /** Requests and tokens of the last minute. */
  lastMinute(key: string): { requests: number; tokens: number } {
    const total = this.usage.get(key)?.total(this.now());
    return { requests: total?.calls ?? 0, tokens: total?.tokens ?? 0 };
  }
}

function countsOf(map: Map<string, MinuteCounts>, key: string): MinuteCounts {
  let counts = map.get(key);
  if (!counts) {
    counts = new MinuteCounts();
    map.set(key, counts);
  }
  return counts;
}

export type RoutingContext = {
  config: Pick<GatewayConfig, "providers" | "prices">;
  stats: DeploymentStats;
  random: () => number;
  now: () => number;
  /** Deployments skipped now (cooling down): a strategy does not choose them first. */
  coolingDown: (c: Candidate) => boolean;
  /** The request's size, for least-cost: its input tokens (estimated) and its output ceiling. */
  size: () => { inputTokens: number; outputTokens: number };
};

/** A deployment as measured and chosen: one provider's one model, whichever of its keys a call used. */
export const modelKey = (c: Candidate) => `${c.provider}/${c.model}`;

/**
 * The alias's candidates in the order to try them: the strategy's choice first, then the rest as listed. A
 * candidate in cooldown is not chosen first (the walk skips it anyway), so a weighted alias whose heavier half is
 * down sends everything to the other half.
 */
export function orderCandidates(spec: AliasConfig, ctx: RoutingContext): Candidate[] {
  const candidates = spec.candidates;
  const strategy = spec.strategy ?? "fallback";
  if (strategy === "fallback" || candidates.length < 2) return candidates;
  const open = candidates.filter((c) => !ctx.coolingDown(c));
  if (!open.length) return candidates;
  let first: Candidate;
  switch (strategy) {
    case "weighted":
      first = pickWeighted(open, ctx.random());
      break;
    case "least-latency":
      first = leastLatency(open, ctx);
      break;
    case "least-cost":
      first = leastCost(open, ctx);
      break;
    case "usage-based":
      first = mostHeadroom(open, ctx);
      break;
  }
  return [first, ...candidates.filter((c) => c !== first)];
}

function pickWeighted(open: Candidate[], random: number): Candidate {
  const total = open.reduce((sum, c) => sum + (c.weight ?? 1), 0);
  let at = random * total;
  for (const c of open) {
    at -= c.weight ?? 1;
    if (at < 0) return c;
  }
  return open.at(-1)!;
}

/** The fastest recent starter; one with no recent sample is tried first, so each is measured (and measured again). */
function leastLatency(open: Candidate[], ctx: RoutingContext): Candidate {
  let best = open[0]!;
  let bestMs = Number.POSITIVE_INFINITY;
  for (const c of open) {
    const ms = ctx.stats.meanLatency(modelKey(c));
    if (ms === undefined) return c;
    if (ms < bestMs) [best, bestMs] = [c, ms];
  }
  return best;
}

/** The cheapest for the request's size at the catalog's (or the config's) prices; an unpriced one is never chosen. */
function leastCost(open: Candidate[], ctx: RoutingContext): Candidate {
  const { inputTokens, outputTokens } = ctx.size();
  const at = new Date(ctx.now());
  let best = open[0]!;
  let bestCost = Number.POSITIVE_INFINITY;
  for (const c of open) {
    const provider = ctx.config.providers[c.provider];
    if (!provider) continue;
    const price = findServedPrice(ctx.config.prices, { ...provider, name: c.provider }, c.model, c.model, at);
    if (!price) continue;
    const cost = estimate(price, inputTokens, outputTokens);
    if (cost < bestCost) [best, bestCost] = [c, cost];
  }
  return best;
}

/** Only to compare candidates, never to bill: a float is fine here. */
const estimate = (p: ModelPrice, input: number, output: number) =>
  (input * Number(p.input) + output * Number(p.output)) / 1e6;

/**
 * The candidate with the most of its per-minute allowance left (its `rpm` and `tpm`, as its provider limits it),
 * by what this process sent it in the last minute; one with no limit set counts as having all of it left.
 */
function mostHeadroom(open: Candidate[], ctx: RoutingContext): Candidate {
  let best = open[0]!;
  let bestLeft = Number.NEGATIVE_INFINITY;
  for (const c of open) {
    const used = ctx.stats.lastMinute(modelKey(c));
    const left = Math.min(c.rpm ? 1 - used.requests / c.rpm : 1, c.tpm ? 1 - used.tokens / c.tpm : 1);
    if (left > bestLeft) [best, bestLeft] = [c, left];
  }
  return best;
}
