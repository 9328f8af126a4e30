import "server-only";
import type { LimitScope } from "@/db/schema";
import { log } from "@/lib/core/process/log";
import { allowancesOf } from "./allowances";
import { unpricedCandidateOf } from "./assumed-prices";
import { noticeBudgetUse } from "./budget-alerts";
import type { CounterStore, Take } from "./counters";
import { estimateCost } from "./estimate";
import { fromNano, toNano, usd } from "./money";
import { limitsOf, type ScopedLimit, subjectOf } from "./policy";
import { LIMITS_UNAVAILABLE_RETRY_SECONDS } from "./rate-limit";
import { type Call, refuse, type Step, stampOf } from "./types";
import { windowsAt } from "./windows";

export type Period = "daily" | "monthly";
/** A budget's counter; an end user's subject is its template's subject and the end user (policy.ts limitsOf). */
export const budgetKey = (scope: LimitScope, subjectId: string, period: Period, window: string) =>
  `usd:${scope}:${subjectId}:${period === "daily" ? "d" : "m"}:${window}`;
/** How long a budget window's counter is kept: past its period, for the admin screen's spend figures. */
export const BUDGET_TTL: Record<Period, number> = { daily: 2 * 86_400, monthly: 32 * 86_400 };

type Line = Take & {
  limit: number | null;
  scope: ScopedLimit;
  period: Period;
  soft: string | null;
  hard: string | null;
};

export const hasBudget = (l: ScopedLimit) =>
  l.dailySoftUsd !== null ||
  l.dailyHardUsd !== null ||
  l.monthlySoftUsd !== null ||
  l.monthlyHardUsd !== null;

/**
 * USD per UTC day and month, per tenant, per key or user, and per end user of a template. Before the call its
 * most expensive outcome is reserved on every budget that covers it, all or none, out of the process's leased
 * allowances (allowances.ts: no instance, nor all of them together, can spend more than the room left); after
 * it, the reservation is replaced by the real cost. Past a hard limit the call is refused; past a soft one it
 * goes through with a warning. The counter store unreachable, a call goes on what this process holds leased,
 * then is refused (`limits_unavailable`); soft limits go unchecked, with a warning (`limits_degraded`).
 *
 * The worst case must be bounded for that to hold: under a hard budget a call that sets no max_tokens is sent
 * with the tenant's output ceiling (and an API caller is told so, in a header and the audit). A provider that
 * still bills more than the reservation is recorded (a `budget_overrun` event) and counted in full, so the
 * next call under the exhausted budget is refused.
 */
export function budgetStep(counters: () => CounterStore, now: () => number = Date.now): Step {
  const step: Step = async function* budget(given, next) {
    const budgeted = limitsOf(given.policy, given.caller).filter(hasBudget);
    if (!budgeted.length) return yield* next(given);
    const ceiling = given.policy.maxOutputTokensDefault;
    const hard = budgeted.some((l) => l.dailyHardUsd !== null || l.monthlyHardUsd !== null);
    // A call an unpriced model could serve has no upper bound to reserve, nor a cost to settle: a hard budget
    // could not hold, so it is refused until the tenant admin assumes a price for that model.
    const unpriced = hard ? unpricedCandidateOf(given) : undefined;
    if (unpriced) {
      const model = `${unpriced.provider}/${unpriced.model}`;
      return yield* refuse(
        given,
        "budget_unpriced_model",
        "budget_unpriced_model",
        `The model ${model}, which may serve "${given.request.model}", has no price, and a hard budget covers this call: its cost could not be counted. A tenant admin can set an assumed price for ${model} on the Limits page.`,
        0,
      );
    }
    const capped = given.request.maxTokens === undefined && hard;
    const call = capped ? { ...given, request: { ...given.request, maxTokens: ceiling } } : given;
    const tenantId = call.caller.tenantId;
    const w = windowsAt(now());
    const reserved = toNano(estimateCost(call.gateway, call.request, ceiling, call.policy.assumedPrices));
    const lines: Line[] = budgeted.flatMap((l) => [
      {
        key: budgetKey(l.scope, l.subjectId, "daily", w.day),
        amount: reserved,
        limit: l.dailyHardUsd === null ? null : toNano(l.dailyHardUsd),
        ttlSeconds: BUDGET_TTL.daily,
        scope: l,
        period: "daily" as const,
        soft: l.dailySoftUsd,
        hard: l.dailyHardUsd,
      },
      {
        key: budgetKey(l.scope, l.subjectId, "monthly", w.month),
        amount: reserved,
        limit: l.monthlyHardUsd === null ? null : toNano(l.monthlyHardUsd),
        ttlSeconds: BUDGET_TTL.monthly,
        scope: l,
        period: "monthly" as const,
        soft: l.monthlySoftUsd,
        hard: l.monthlyHardUsd,
      },
    ]);
    const held = await allowancesOf(counters()).reserve(tenantId, lines);
    if (!held.ok) {
      const line = lines[held.index]!;
      if (held.reason === "unavailable")
        return yield* refuse(
          call,
          "budget_hard",
          "limits_unavailable",
          `The budget counters cannot be reached and this instance holds no allowance left under the ${line.period} budget of ${subjectOf(line.scope)}: a hard budget is not passed unchecked. Try again in a few seconds.`,
          LIMITS_UNAVAILABLE_RETRY_SECONDS,
        );
      const retry = line.period === "daily" ? w.secondsToNextDay : w.secondsToNextMonth;
      return yield* refuse(
        call,
        "budget_hard",
        "budget_exceeded",
        `The ${line.period} budget of ${subjectOf(line.scope)} is used up: ${usd(held.value)} of ${usd(line.hard!)} spent or reserved, and this request may cost up to ${usd(reserved)}. It resets at the start of the next ${line.period === "daily" ? "day" : "month"} (UTC).`,
        retry,
      );
    }
    const values = held.values;
    // Past 50, 80 or 100 % of a limit, the alerts hear of it (throttled, never awaited).
    for (const [i, line] of lines.entries())
      for (const limit of [line.soft, line.hard])
        if (limit !== null) noticeBudgetUse(tenantId, line.key, values[i]!, toNano(limit));
    if (held.degraded && lines.some((l) => l.soft !== null))
      yield {
        type: "guardrail",
        code: "limits_degraded",
        message:
          "The budget counters cannot be reached: this call's soft budget limits were not checked (hard ones are held to what this instance has leased). Its spend is counted when they answer again.",
        blocking: false,
      };
    // The request is changed upstream: an API caller sees it (a header and the audit); drawer turns are ours.
    if (capped && call.caller.source === "api")
      yield {
        type: "guardrail",
        code: "max_tokens_applied",
        message: `max_tokens was not set, so this tenant's output ceiling of ${ceiling} tokens was sent to the provider (a hard budget covers this call, and its reservation must bound what the call can cost).`,
        blocking: false,
      };
    for (const [i, line] of lines.entries()) {
      if (line.soft !== null && values[i]! > toNano(line.soft))
        yield {
          type: "guardrail",
          code: "budget_soft",
          message: `The ${line.period} budget of ${subjectOf(line.scope)} is past its soft limit: ${usd(values[i]!)} of ${usd(line.soft)} spent or reserved${line.hard ? ` (hard limit ${usd(line.hard)})` : ""}.`,
          blocking: false,
        };
    }
    // Unknown cost (an unpriced model, or a call stopped before its usage arrived) keeps the reservation.
    let cost: string | null = null;
    try {
      for await (const event of next(call)) {
        const stamp = stampOf(event);
        if (stamp) {
          cost = stamp.cost;
          if (cost !== null && toNano(cost) > reserved) {
            const message = `The provider billed ${usd(cost)} for this call, more than the ${usd(reserved)} reserved for it; the whole amount counts against the budget.`;
            log.warn({ tenantId, caller: call.caller, billed: cost, reserved: fromNano(reserved) }, message);
            yield { type: "guardrail", code: "budget_overrun", message, blocking: false };
          }
        }
        yield event;
      }
    } finally {
      const spent = cost === null ? reserved : toNano(cost);
      held.settle(lines.map(() => spent));
    }
  };
  return Object.assign(step, {
    applies: (call: Call) => limitsOf(call.policy, call.caller).some(hasBudget),
  });
}
