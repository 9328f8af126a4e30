import type { RateLimitState } from "./types";

/**
 * OpenAI's rate-limit headers for the windows that applied to a call, in the order OpenAI sends them:
 * `x-ratelimit-limit-*`, then `-remaining-*`, then `-reset-*` (requests before tokens). A kind no limit
 * covers is left out, as OpenAI leaves out what it does not limit. Then what the call's run has left under its
 * ceilings (`x-tollgate-run-remaining-{usd,calls,tokens,seconds}`), for the measures a ceiling sets.
 */
export function rateLimitHeaders(state: RateLimitState): [string, string][] {
  const r = state.requests;
  const t = state.tokens;
  const headers: [string, string][] = [];
  if (r) headers.push(["x-ratelimit-limit-requests", String(r.limit)]);
  if (t) headers.push(["x-ratelimit-limit-tokens", String(t.limit)]);
  if (r) headers.push(["x-ratelimit-remaining-requests", String(r.remaining)]);
  if (t) headers.push(["x-ratelimit-remaining-tokens", String(t.remaining)]);
  if (r) headers.push(["x-ratelimit-reset-requests", resetDuration(r.resetSeconds)]);
  if (t) headers.push(["x-ratelimit-reset-tokens", resetDuration(t.resetSeconds)]);
  const run = state.run;
  if (run?.usd !== undefined) headers.push(["x-tollgate-run-remaining-usd", run.usd]);
  if (run?.calls !== undefined) headers.push(["x-tollgate-run-remaining-calls", String(run.calls)]);
  if (run?.tokens !== undefined) headers.push(["x-tollgate-run-remaining-tokens", String(run.tokens)]);
  if (run?.seconds !== undefined) headers.push(["x-tollgate-run-remaining-seconds", String(run.seconds)]);
  return headers;
}

/**
 * A reset time as OpenAI writes it (Go's duration format): "20s", "1m0s", "6m0s", "1h2m3s", "1.5s",
 * and "12ms" under a second.
 */
export function resetDuration(seconds: number): string {
  // Whole seconds within the minute are what every call under a per-minute limit asks for: written once each.
  if (Number.isInteger(seconds) && seconds >= 0 && seconds <= 60) {
    WHOLE[seconds] ??= durationOf(seconds);
    return WHOLE[seconds];
  }
  return durationOf(seconds);
}
const WHOLE: string[] = [];

function durationOf(seconds: number): string {
  const ms = Math.max(0, Math.round(seconds * 1000));
  if (ms > 0 && ms < 1000) return `${ms}ms`;
  const hours = Math.floor(ms / 3_600_000);
  const minutes = Math.floor((ms % 3_600_000) / 60_000);
  // Up to three decimals, without trailing zeros: 1500 ms is "1.5s".
  const rest = `${Number(((ms % 60_000) / 1000).toFixed(3))}s`;
  if (hours) return `${hours}h${minutes}m${rest}`;
  return minutes ? `${minutes}m${rest}` : rest;
}
