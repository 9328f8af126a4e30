import { type AllowanceLine, allowancesOf } from "./allowances";
import type { CounterStore } from "./counters";
import { limitsOf, type ScopedLimit, subjectOf } from "./policy";
import { type Call, type RateLimitState, type RateLimitWindow, refuse, type Step, stampOf } from "./types";
import { windowsAt } from "./windows";

const rpmKey = (l: ScopedLimit, minute: number) => `rpm:${l.scope}:${l.subjectId}:${minute}`;
const tpmKey = (l: ScopedLimit, minute: number) => `tpm:${l.scope}:${l.subjectId}:${minute}`;

/** How soon a call refused because the counter store is unreachable is told to try again. */
export const LIMITS_UNAVAILABLE_RETRY_SECONDS = 5;

/**
 * Requests and tokens per minute, per tenant, per key or user, and per end user of a template, in fixed
 * one-minute windows, spent out of the process's leased allowances (allowances.ts). A request is counted before
 * it is sent (all of its counters or none); its tokens are counted when it ends, and a window whose tokens are
 * spent refuses further calls until it ends. A refusal says when to retry; an admitted call first yields the
 * tightest window of each kind (`rate_limit_state`, for /v1's x-ratelimit-* headers). The store unreachable, a
 * call goes on what the process holds, then is refused (`limits_unavailable`): a hard limit fails closed.
 */
/** The limits of a call that count requests or tokens per minute. */
const rateLimitsOf = (call: Call) =>
  limitsOf(call.policy, call.caller).filter(
    (l) => l.requestsPerMinute !== null || l.tokensPerMinute !== null,
  );

export function rateLimitStep(counters: () => CounterStore, now: () => number = Date.now): Step {
  const step: Step = async function* rateLimit(call, next) {
    const limits = rateLimitsOf(call);
    if (!limits.length) return yield* next(call);
    const tenantId = call.caller.tenantId;
    const w = windowsAt(now());
    const byTokens = limits.filter((l) => l.tokensPerMinute !== null);
    const byRequests = limits.filter((l) => l.requestsPerMinute !== null);
    // A request is held before it is sent; a tokens window needs only to have room left (its tokens are known
    // when the call ends, and counted then).
    const lines: AllowanceLine[] = [
      ...byRequests.map((l) => ({
        key: rpmKey(l, w.minute),
        amount: 1,
        limit: l.requestsPerMinute,
        ttlSeconds: 120,
      })),
      ...byTokens.map((l) => ({
        key: tpmKey(l, w.minute),
        amount: 0,
        limit: l.tokensPerMinute,
        ttlSeconds: 120,
      })),
    ];
    const held = await allowancesOf(counters()).reserve(tenantId, lines);
    if (!held.ok) {
      const l =
        held.index < byRequests.length ? byRequests[held.index]! : byTokens[held.index - byRequests.length]!;
      if (held.reason === "unavailable")
        return yield* refuse(
          call,
          "rate_limit",
          "limits_unavailable",
          `The rate-limit counters cannot be reached and this instance holds no allowance left under the per-minute limit of ${subjectOf(l)}: a hard limit is not passed unchecked. Try again in a few seconds.`,
          LIMITS_UNAVAILABLE_RETRY_SECONDS,
        );
      const per =
        held.index < byRequests.length ? `${l.requestsPerMinute} requests` : `${l.tokensPerMinute} tokens`;
      return yield* refuse(
        call,
        "rate_limit",
        "rate_limit_exceeded",
        `Rate limit reached: ${per} per minute for ${subjectOf(l)}. Try again in ${w.secondsToNextMinute} s.`,
        w.secondsToNextMinute,
      );
    }
    // Every window is this minute: each resets when it ends.
    yield rateLimitState(
      byRequests.map((l, i): Window => [l.requestsPerMinute!, held.values[i]!]),
      byTokens.map((l, i): Window => [l.tokensPerMinute!, held.values[byRequests.length + i]!]),
      w.secondsToNextMinute,
    );
    let tokens = 0;
    try {
      for await (const event of next(call)) {
        const usage = stampOf(event)?.usage;
        if (usage) tokens = usage.inputTokens + usage.cachedInputTokens + usage.outputTokens;
        yield event;
      }
    } finally {
      held.settle([...byRequests.map(() => 1), ...byTokens.map(() => tokens)]);
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
