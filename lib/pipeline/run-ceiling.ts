import "server-only";
import { and, eq, lt } from "drizzle-orm";
import type { Database } from "@/db";
import { runStart } from "@/db/schema";
import { countFailure } from "@/lib/core/errors/failures";
import { log } from "@/lib/core/process/log";
import { processSlot } from "@/lib/core/process/process-state";
import { type AllowanceLine, allowancesOf } from "./allowances";
import { unpricedCandidateOf } from "./assumed-prices";
import type { CounterStore } from "./counters";
import { estimateCost, estimateInputTokens } from "./estimate";
import { fromNano, toNano, usd } from "./money";
import { endUserSubject, type ScopedRunCeiling } from "./policy";
import { LIMITS_UNAVAILABLE_RETRY_SECONDS } from "./rate-limit";
import {
  type Call,
  emptyStamp,
  type PipelineEvent,
  type RunRemaining,
  refuse,
  type Step,
  stampOf,
} from "./types";

export type RunMeasure = "usd" | "calls" | "tokens";

/**
 * A run ceiling's counter: per ceiling (scope and subject) and per run, the run id as given when short and plain,
 * else its hash (endUserSubject's rule), so a key stays short and no run id can look like another's.
 */
export const runCeilingKey = (
  scope: ScopedRunCeiling["scope"],
  subjectId: string,
  runId: string,
  measure: RunMeasure,
) => `run:${scope}:${subjectId}:${endUserSubject(runId)}:${measure}`;

/** A run's counters outlive any run worth a ceiling: a week. */
export const RUN_COUNTER_TTL_SECONDS = 7 * 86_400;

/** What a listener of run-ceiling crossings hears: the use of one measure passed 50, 80 or 100 % of a ceiling. */
export type RunCeilingCrossing = {
  tenantId: string;
  scope: ScopedRunCeiling["scope"];
  subjectId: string;
  runId: string;
  measure: RunMeasure;
  /** USD for `usd`, else a count; `used` includes the reservation of the call that crossed. */
  used: number;
  ceiling: number;
};
export type RunCeilingListener = (crossing: RunCeilingCrossing) => unknown;

const listeners = processSlot("pipeline.runCeilingListeners", () => new Set<RunCeilingListener>());
/** The thresholds whose crossing is told (fractions of the ceiling). */
const THRESHOLDS = [0.5, 0.8, 1];

/**
 * Registers a listener told (fire and forget; a throw or rejection is logged, never the call's) when a
 * reservation carries a run's use of a measure past 50, 80 or 100 % of one of its ceilings. Returns its removal.
 */
export function onRunCeilingCrossed(listener: RunCeilingListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Tells the listeners of each threshold `before → after` passed (as the reservation made it). */
export function notifyCrossings(base: Omit<RunCeilingCrossing, "used">, before: number, after: number): void {
  if (!listeners.size || base.ceiling <= 0) return;
  if (!THRESHOLDS.some((t) => before < t * base.ceiling && after >= t * base.ceiling)) return;
  const crossing = { ...base, used: after };
  for (const listener of listeners) {
    try {
      Promise.resolve(listener(crossing)).catch((error: unknown) =>
        log.error({ err: error }, "a run-ceiling listener failed"),
      );
    } catch (error) {
      log.error({ err: error }, "a run-ceiling listener failed");
    }
  }
}

/** The ceilings a call meets: none without a run id. */
const ceilingsOf = (call: Call): ScopedRunCeiling[] =>
  call.caller.runId ? (call.policy.runCeilings ?? []) : [];

const WHOSE = { tenant: "the tenant's run ceiling", key: "the API key's run ceiling" } as const;

type Line = AllowanceLine & { ceiling: ScopedRunCeiling; measure: RunMeasure };

export type RunCeilingDeps = {
  counters: () => CounterStore;
  db: () => Promise<Database>;
  now?: () => number;
};

/**
 * Ceilings per run (a run id's calls, from /v1, /mcp and a drawer turn alike), set for every run of the tenant
 * and of one API key: USD, calls, tokens, and seconds of wall time from the run's first call. USD, calls and
 * tokens are leased allowances like budgets (allowances.ts: exact across replicas): before the call its worst
 * case is reserved (USD as the budget step reserves it, tokens as its input counted high plus its output
 * ceiling, one call), then settled to what it used. Wall time is measured from the run's `run_start` row, which
 * the first call to reach any instance writes. A call that would pass a ceiling is refused
 * (`run_budget_exceeded`); an admitted API call is told what its run has left (x-tollgate-run-remaining-*).
 *
 * `toolCall`: a tool called over /mcp (no model call): it counts one call, and is refused once the run's wall
 * time, calls, USD or tokens are used up; what a tool reports spending is not counted against the ceiling.
 */
export function runCeilingStep(deps: RunCeilingDeps, options: { toolCall?: boolean } = {}): Step {
  const now = deps.now ?? Date.now;
  const step: Step = async function* runCeiling(given, next) {
    const ceilings = ceilingsOf(given);
    if (!ceilings.length) return yield* next(given);
    const runId = given.caller.runId!;
    const tenantId = given.caller.tenantId;
    const model = !options.toolCall;
    const bounded = model && ceilings.some((c) => c.maxUsd !== null || c.maxTokens !== null);
    const unpriced =
      model && ceilings.some((c) => c.maxUsd !== null) ? unpricedCandidateOf(given) : undefined;
    if (unpriced)
      return yield* refuse(
        given,
        "budget_unpriced_model",
        "budget_unpriced_model",
        `The model ${unpriced.provider}/${unpriced.model}, which may serve "${given.request.model}", has no price, and the run "${runId}" has a USD ceiling: its cost could not be counted. A tenant admin can set an assumed price for it on the Limits page.`,
        0,
      );
    // The reservation must bound the call: without max_tokens it is sent with the tenant's output ceiling.
    const outputCeiling = given.policy.maxOutputTokensDefault;
    const call =
      bounded && given.request.maxTokens === undefined
        ? { ...given, request: { ...given.request, maxTokens: outputCeiling } }
        : given;

    let elapsed = 0;
    const timed = ceilings.filter((c) => c.maxSeconds !== null);
    if (timed.length) {
      let started: number;
      try {
        started = await runStartOf(await deps.db(), tenantId, runId, now());
      } catch (error) {
        countFailure("pipeline");
        log.error({ err: error }, "could not read the run's start; the call is refused");
        return yield* refuse(
          call,
          "run_ceiling",
          "limits_unavailable",
          `The start of the run "${runId}" could not be read, and a wall-time ceiling covers it: it is not passed unchecked. Try again in a few seconds.`,
          LIMITS_UNAVAILABLE_RETRY_SECONDS,
        );
      }
      elapsed = Math.max(0, (now() - started) / 1000);
      const over = timed.find((c) => elapsed >= c.maxSeconds!);
      if (over)
        return yield* refusal(
          call,
          `The run "${runId}" has run ${Math.floor(elapsed)} s of its ${over.maxSeconds} s (${WHOSE[over.scope]}).`,
        );
    }

    const reservedUsd = model
      ? toNano(estimateCost(call.gateway, call.request, outputCeiling, call.policy.assumedPrices))
      : 0;
    const reservedTokens = model
      ? estimateInputTokens(call.request) + (call.request.maxTokens ?? outputCeiling)
      : 0;
    const lines: Line[] = ceilings.flatMap((c) => {
      const line = (measure: RunMeasure, amount: number, limit: number): Line => ({
        key: runCeilingKey(c.scope, c.subjectId, runId, measure),
        amount,
        limit,
        ttlSeconds: RUN_COUNTER_TTL_SECONDS,
        ceiling: c,
        measure,
      });
      return [
        ...(c.maxUsd !== null ? [line("usd", reservedUsd, toNano(c.maxUsd))] : []),
        ...(c.maxCalls !== null ? [line("calls", 1, c.maxCalls)] : []),
        ...(c.maxTokens !== null ? [line("tokens", reservedTokens, c.maxTokens)] : []),
      ];
    });
    const held = lines.length ? await allowancesOf(deps.counters()).reserve(tenantId, lines) : undefined;
    if (held && !held.ok) {
      const line = lines[held.index]!;
      if (held.reason === "unavailable")
        return yield* refuse(
          call,
          "run_ceiling",
          "limits_unavailable",
          `The run ceiling counters cannot be reached and this instance holds no allowance left under ${WHOSE[line.ceiling.scope]} of the run "${runId}": a ceiling is not passed unchecked. Try again in a few seconds.`,
          LIMITS_UNAVAILABLE_RETRY_SECONDS,
        );
      return yield* refusal(call, usedUpMessage(runId, line, held.value));
    }
    const values = held?.values ?? [];
    for (const [i, line] of lines.entries())
      notifyCrossings(
        {
          tenantId,
          scope: line.ceiling.scope,
          subjectId: line.ceiling.subjectId,
          runId,
          measure: line.measure,
          ceiling: shown(line.measure, line.limit!),
        },
        shown(line.measure, values[i]! - line.amount),
        shown(line.measure, values[i]!),
      );
    if (call.caller.source === "api") {
      // The request is changed upstream: an API caller is told (a header and the audit), as the budget step does.
      if (call !== given)
        yield {
          type: "guardrail",
          code: "max_tokens_applied",
          message: `max_tokens was not set, so this tenant's output ceiling of ${outputCeiling} tokens was sent to the provider (a USD or tokens ceiling of the run "${runId}" covers this call, and its reservation must bound what the call can use).`,
          blocking: false,
        };
      yield { type: "rate_limit_state", run: remaining(lines, values, timed, elapsed) };
    }

    let cost: string | null = null;
    let tokens: number | null = null;
    try {
      for await (const event of next(call)) {
        const stamp = stampOf(event);
        if (stamp) {
          cost = stamp.cost;
          const u = stamp.usage;
          tokens = u.inputTokens + u.cachedInputTokens + u.outputTokens;
        }
        yield event;
      }
    } finally {
      // Unknown cost or usage (a call stopped before its usage arrived) keeps the reservation.
      held?.settle(
        lines.map((l) =>
          l.measure === "calls"
            ? 1
            : l.measure === "usd"
              ? cost === null || !model
                ? l.amount
                : toNano(cost)
              : tokens === null || !model
                ? l.amount
                : tokens,
        ),
      );
    }
  };
  return Object.assign(step, { applies: (call: Call) => ceilingsOf(call).length > 0 });
}

/** A refusal at a run ceiling: it does not reset, so the caller is told not to retry (no Retry-After). */
function* refusal(call: Call, message: string): Generator<PipelineEvent> {
  yield { type: "guardrail", code: "run_ceiling", message, blocking: true };
  yield {
    type: "error",
    error: { class: "run_budget_exceeded", message, status: 429 },
    stamp: emptyStamp(call.request.model),
  };
}

/** A measure as a listener and a message count it: USD for `usd` (the counters hold nano-USD). */
const shown = (measure: RunMeasure, value: number) => (measure === "usd" ? Number(fromNano(value)) : value);

function usedUpMessage(runId: string, line: Line, value: number): string {
  const whose = WHOSE[line.ceiling.scope];
  if (line.measure === "usd")
    return `The run "${runId}" has used ${usd(fromNano(value))} of its ${usd(line.ceiling.maxUsd!)}, and this request may cost up to ${usd(fromNano(line.amount))} (${whose}).`;
  if (line.measure === "calls")
    return `The run "${runId}" has used ${value} of its ${line.limit} calls (${whose}).`;
  return `The run "${runId}" has used ${value} of its ${line.limit} tokens, and this request may use up to ${line.amount} (${whose}).`;
}

/** The least left of each measure over the ceilings that set it, after this call's reservation. */
function remaining(
  lines: Line[],
  values: number[],
  timed: ScopedRunCeiling[],
  elapsed: number,
): RunRemaining {
  const least = (measure: RunMeasure) => {
    let min: number | undefined;
    for (const [i, l] of lines.entries())
      if (l.measure === measure)
        min = Math.min(min ?? Number.POSITIVE_INFINITY, Math.max(0, l.limit! - values[i]!));
    return min;
  };
  const out: RunRemaining = {};
  const usdLeft = least("usd");
  if (usdLeft !== undefined) out.usd = fromNano(usdLeft);
  const calls = least("calls");
  if (calls !== undefined) out.calls = calls;
  const tokens = least("tokens");
  if (tokens !== undefined) out.tokens = tokens;
  if (timed.length)
    out.seconds = Math.max(0, Math.floor(Math.min(...timed.map((c) => c.maxSeconds! - elapsed))));
  return out;
}

// A run's start never changes once written: kept per process (the oldest forgotten past a bound).
const starts = processSlot("pipeline.runStarts", () => new Map<string, number>());
const STARTS_KEPT = 10_000;

/**
 * When the run began (epoch ms): its `run_start` row, written by the first call to reach any instance (ON
 * CONFLICT DO NOTHING) and read back, so every replica measures the run from the same instant.
 */
export async function runStartOf(db: Database, tenantId: string, runId: string, at: number): Promise<number> {
  const key = `${tenantId}\u0000${runId}`;
  const known = starts.get(key);
  if (known !== undefined) return known;
  await db
    .insert(runStart)
    .values({ tenantId, runId, startedAt: new Date(at) })
    .onConflictDoNothing();
  const rows = await db
    .select({ startedAt: runStart.startedAt })
    .from(runStart)
    .where(and(eq(runStart.tenantId, tenantId), eq(runStart.runId, runId)));
  const started = rows[0]?.startedAt.getTime() ?? at;
  if (starts.size >= STARTS_KEPT) starts.delete(starts.keys().next().value!);
  starts.set(key, started);
  return started;
}

/** Deletes the starts of runs begun more than 8 days ago (past their counters' week): a maintenance job. */
export async function sweepRunStarts(db: Database, now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - 8 * 86_400_000);
  const deleted = await db
    .delete(runStart)
    .where(lt(runStart.startedAt, cutoff))
    .returning({ runId: runStart.runId });
  return deleted.length;
}
