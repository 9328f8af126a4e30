// What the run measures and how much of it: the paths, the targets they are called through, the sizes.
import type { Endpoint } from "./clients";
import type { RawTarget } from "./raw-call";

/** A whole number from the environment (for shorter runs while developing), else the default. */
const envCount = (name: string, fallback: number) => {
  const value = Number(process.env[name]);
  return Number.isInteger(value) && value > 0 ? value : fallback;
};

export const PLAN = {
  /** Warm-up: SDK calls per path, then streamed calls per streamed path. */
  warmup: envCount("BENCH_WARMUP", 100),
  rounds: 7,
  perRound: envCount("BENCH_PER_ROUND", 25),
  /** Streamed calls per path in each of the `rounds` rounds. */
  streamsPerRound: envCount("BENCH_STREAMS", 10),
  /** Calls per path under load, in `slices` alternating slices, `concurrency` at a time. */
  calls: envCount("BENCH_CALLS", 3000),
  slices: 5,
  concurrency: envCount("BENCH_CONCURRENCY", 16),
};

// "pg" and "redis": a governed key (all six limits, none reached), on the lean server with its counters in
// PostgreSQL, and on a second lean server with REDIS_URL, for what governing a call costs beside "lean";
// "leanRedis": a key without limits on that second server, the Redis column's baseline in its own process;
// "endUsers": the "pg" key's limits plus a template for each end user of its calls, the calls naming one of
// END_USERS end users in turn; "guarded": a key of another tenant whose guardrail policy has every deterministic
// rule on, on the lean server.
export const PATHS = [
  "direct",
  "raw",
  "lean",
  "pg",
  "endUsers",
  "guarded",
  "leanRedis",
  "redis",
  "portkey",
  "bare",
  "next",
] as const;
export type Path = (typeof PATHS)[number];
/** How many end users the "endUsers" column's calls name, one after another. */
export const END_USERS = 50;
/** The paths a stream is measured on: the bare Next route reads the upstream's whole answer before it replies. */
export const STREAM_PATHS = ["direct", "raw", "lean", "portkey", "next"] as const satisfies readonly Path[];
export type StreamPath = (typeof STREAM_PATHS)[number];
/** The paths that write a ledger row per call, each under its own API key. */
export const LEDGER_PATHS = [
  "lean",
  "pg",
  "endUsers",
  "guarded",
  "leanRedis",
  "redis",
  "next",
] as const satisfies readonly Path[];
export type LedgerPath = (typeof LEDGER_PATHS)[number];
export const isLedgerPath = (p: Path): p is LedgerPath => (LEDGER_PATHS as readonly Path[]).includes(p);

/**
 * One way of reaching the upstream: where both clients post its chat completions, the same endpoint for raw
 * node:http calls (streams), and the process group serving it and its log.
 */
export type Target = {
  label: string;
  endpoint: Endpoint;
  raw: RawTarget;
  model: string;
  pgid: number;
  /** The serving process's log (its output). */
  logFile: string;
};
export type PerPath<T> = Record<Path, T>;

export const perPath = <T>(make: () => T) => Object.fromEntries(PATHS.map((p) => [p, make()])) as PerPath<T>;
/** The paths in the order of round (or slice) `i`: the first one rotates, so noise falls on all alike. */
export const rotated = <P extends Path>(paths: readonly P[], i: number): P[] =>
  paths.map((_, j) => paths[(i + j) % paths.length]!);
