import { countFailure } from "@/lib/core/errors/failures";
import { log } from "@/lib/core/process/log";
import type { CounterStore, Take } from "./counters";
import { SCOPE_LABEL, type ScopedLimit } from "./policy";
import { type Call, type RateLimitState, type RateLimitWindow, refuse, type Step, stampOf } from "./types";
import { windowsAt } from "./windows";

const rpmKey = (l: ScopedLimit, minute: number) => `rpm:${l.scope}:${l.subjectId}:${minute}`;
const tpmKey = (l: ScopedLimit, minute: number) => `tpm:${l.scope}:${l.subjectId}:${minute}`;

/**
 * Requests and tokens per minute, per tenant and per key or user, in fixed one-minute windows. A request is
 * counted before it is sent (all of its counters or none); its tokens are counted when it ends, and a window
 * whose tokens are spent refuses further calls until it ends. A refusal says when to retry; an admitted call
 * first yields the tightest window of each kind (`rate_limit_state`, for /v1's x-ratelimit-* headers).
 */
/** The limits of a call that count requests or tokens per minute. */
const rateLimitsOf = (call: Call) =>
  call.policy.limits.filter((l) => l.requestsPerMinute !== null || l.tokensPerMinute !== null);

export function rateLimitStep(counters: () => CounterStore, now: () => number = Date.now): Step {
  const step: Step = async function* rateLimit(call, next) {
    const limits = rateLimitsOf(call);
    if (!limits.length) return yield* next(call);
    const tenantId = call.caller.tenantId;
    const w = windowsAt(now());
    const byTokens = limits.filter((l) => l.tokensPerMinute !== null);
    const byRequests = limits.filter((l) => l.requestsPerMinute !== null);
    let state: RateLimitState;
    try {
      const used = await counters().read(
        tenantId,
        byTokens.map((l) => tpmKey(l, w.minute)),
      );
      const full = byTokens.findIndex((l, i) => used[i]! >= l.tokensPerMinute!);
      if (full >= 0) {
        const l = byTokens[full]!;
        return yield* refuse(
          call,
          "rate_limit",
          "rate_limit_exceeded",
          `Rate limit reached: ${l.tokensPerMinute} tokens per minute for this ${SCOPE_LABEL[l.scope]}. Try again in ${w.secondsToNextMinute} s.`,
          w.secondsToNextMinute,
        );
      }
      const taken = await counters().take(
        tenantId,
        byRequests.map(
          (l): Take => ({ key: rpmKey(l, w.minute), amount: 1, limit: l.requestsPerMinute, ttlSeconds: 120 }),
        ),
      );
      if (!taken.ok) {
        const l = byRequests[taken.index]!;
        return yield* refuse(
          call,
          "rate_limit",
          "rate_limit_exceeded",
          `Rate limit reached: ${l.requestsPerMinute} requests per minute for this ${SCOPE_LABEL[l.scope]}. Try again in ${w.secondsToNextMinute} s.`,
          w.secondsToNextMinute,
        );
      }
      // Every window is this minute: each resets when it ends.
      state = rateLimitState(
        byRequests.map((l, i): Window => [l.requestsPerMinute!, taken.values[i]!]),
        byTokens.map((l, i): Window => [l.tokensPerMinute!, used[i]!]),
        w.secondsToNextMinute,
      );
    } catch (error) {
      // The counters are unreachable: the call goes through (rate limits protect, they must not take the API down).
      countFailure("pipeline");
      log.error({ err: error }, "rate-limit counters unavailable; the call is let through");
      return yield* next(call);
    }
    yield state;
    let tokens = 0;
    try {
      for await (const event of next(call)) {
        const usage = stampOf(event)?.usage;
        if (usage) tokens = usage.inputTokens + usage.cachedInputTokens + usage.outputTokens;
        yield event;
      }
    } finally {
      if (byTokens.length && tokens > 0)
        await counters()
          .add(
            tenantId,
            byTokens.map((l) => ({ key: tpmKey(l, w.minute), amount: tokens, ttlSeconds: 120 })),
          )
          .catch((error: unknown) => {
            countFailure("pipeline");
            log.error({ err: error }, "could not count a call's tokens");
          });
    }
  };
  return Object.assign(step, { applies: (call: Call) => rateLimitsOf(call).length > 0 });
}

type Window = [limit: number, used: number];

/** The tightest window of each kind that applies (`used` counts this request's own request). */
function rateLimitState(requests: Window[], tokens: Window[], resetSeconds: number): RateLimitState {
  const state: RateLimitState = { type: "rate_limit_state" };
  const r = tightest(requests, resetSeconds);
  const t = tightest(tokens, resetSeconds);
  if (r) state.requests = r;
  if (t) state.tokens = t;
  return state;
}

/** The window with the least room left (the smaller limit on a tie); undefined when none applies. */
function tightest(windows: Window[], resetSeconds: number): RateLimitWindow | undefined {
  let best: RateLimitWindow | undefined;
  for (const [limit, used] of windows) {
    const remaining = Math.max(0, limit - used);
    if (!best || remaining < best.remaining || (remaining === best.remaining && limit < best.limit))
      best = { limit, remaining, resetSeconds };
  }
  return best;
}
