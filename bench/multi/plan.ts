// The run's sizes and figures: how many calls, what each one costs, and the limits chosen so both bite.
import Big from "big.js";

const envNumber = (name: string, fallback: number, ok: (n: number) => boolean) => {
  const raw = process.env[name];
  const value = Number(raw);
  if (raw === undefined || raw === "") return fallback;
  if (!ok(value)) throw new Error(`${name}=${raw} is out of range`);
  return value;
};
const count = (name: string, fallback: number) =>
  envNumber(name, fallback, (n) => Number.isInteger(n) && n > 0);
const share = (name: string, fallback: number) => envNumber(name, fallback, (n) => n > 0 && n < 1);

export type CounterBackend = "postgres" | "redis";

/** Which stores to run against, in order (BENCH_COUNTERS: a comma list; default both). */
function backends(): CounterBackend[] {
  const list = (process.env.BENCH_COUNTERS || "postgres,redis").split(",").map((s) => s.trim());
  for (const b of list)
    if (b !== "postgres" && b !== "redis") throw new Error(`BENCH_COUNTERS: unknown store "${b}"`);
  return list as CounterBackend[];
}

const calls = count("BENCH_MULTI_CALLS", 4000);
/** Every call: this prompt, max_tokens = the output the fake upstream bills, so its worst case is near its cost. */
export const OUTPUT_TOKENS = count("BENCH_MULTI_OUTPUT_TOKENS", 200);
export const INPUT_TOKENS = count("BENCH_MULTI_INPUT_TOKENS", 20);
/** USD per 1M tokens of the alias's one candidate (the gateway config's `prices`, overriding the catalog). */
export const PRICE = { input: "2.5", output: "10" } as const;

export const PLAN = {
  backends: backends(),
  calls,
  concurrency: count("BENCH_MULTI_CONCURRENCY", 64),
  leanServers: count("BENCH_MULTI_LEAN", 4),
  /** The lean server killed (kill -9) when this share of the calls has been sent, and which one (0-based). */
  killAt: share("BENCH_MULTI_KILL_AT", 0.3),
  killIndex: 1,
  /** The counter store paused when this share of the calls has been sent, for pauseMs. */
  pauseAt: share("BENCH_MULTI_PAUSE_AT", 0.5),
  pauseMs: count("BENCH_MULTI_PAUSE_MS", 5000),
  /** The tenant's hard daily budget: the cost of this share of the calls. */
  budgetShare: share("BENCH_MULTI_BUDGET_SHARE", 0.7),
  /** The key's requests per minute: this share of the calls. */
  rpmShare: share("BENCH_MULTI_RPM_SHARE", 0.8),
  /** Start at once when this many seconds are left in the UTC minute, else at the start of the next one. */
  minuteRoomSeconds: count("BENCH_MULTI_MINUTE_ROOM", 50),
  warmupPerServer: count("BENCH_MULTI_WARMUP", 40),
  /** Answers sent this long after the store came back still count as "during the pause" (a backlog drains). */
  pauseGraceMs: 2000,
  /** The share of the budget that must be spent before the first budget refusal. */
  minSpentShare: 0.97,
};

/** What one call costs as the fake upstream bills it: tokens × the configured price, exactly. */
export const callCost = (input = INPUT_TOKENS, output = OUTPUT_TOKENS) =>
  new Big(input).times(PRICE.input).plus(new Big(output).times(PRICE.output)).div(1_000_000);

/** The limits, from the sizes: a budget worth `budgetShare` of the calls, an rpm of `rpmShare` of them. */
export const LIMITS = {
  dailyHardUsd: callCost()
    .times(Math.round(PLAN.calls * PLAN.budgetShare))
    .toFixed(),
  requestsPerMinute: Math.round(PLAN.calls * PLAN.rpmShare),
};

/** The tag call i carries in `user`, fixed in width so every call's input estimate (and reservation) is the same. */
export const callTag = (i: number) => `call-${String(i).padStart(6, "0")}`;

/**
 * The body of call i: small and fixed; `user` tags it, so the fake upstream can say when it was admitted (it
 * passes through unchanged).
 */
export const callBody = (i: number, maxTokens = OUTPUT_TOKENS) => ({
  model: "bench",
  messages: [{ role: "user", content: "Say ok." }],
  max_tokens: maxTokens,
  user: callTag(i),
});
