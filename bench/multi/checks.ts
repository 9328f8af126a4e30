// What one run proves, from the client's records and the ledger: the budget held (client-side and in the
// ledger), it was nearly all spent before the first refusal, no key passed its requests per minute, and every
// refusal carried the right status and code.
import Big from "big.js";
import { quantile } from "../report";
import type { CallRecord } from "./calls";
import { callCost, LIMITS, PLAN } from "./plan";
import type { LedgerRow } from "./tenant";

export type Check = { name: string; pass: boolean; detail: string };

export type RunEvents = {
  /** When the lean server was killed (epoch ms) and which target it was. */
  kill: { at: number; target: number };
  /** The store's pause as the proxy logged it (null: it never resumed within the run). */
  pause: { pausedAt: number; resumedAt: number } | null;
};

/** Where a call falls against the pause: sent before it, in flight during it (plus grace), or after. */
export type Phase = "before the pause" | "during the pause" | "after the pause";
export const PHASES: Phase[] = ["before the pause", "during the pause", "after the pause"];

/** What an answer came to, as the tables count it. */
export type Outcome = string;

export type Analysis = {
  checks: Check[];
  budgetUsd: string;
  clientSettledUsd: string;
  ledgerUsd: string;
  spentBeforeFirstRefusalUsd: string | null;
  spentShareBeforeFirstRefusal: number | null;
  firstRefusalCall: number | null;
  /** Answers by outcome and phase. */
  outcomes: Record<Phase, Record<Outcome, number>>;
  /** Answers by server and outcome. */
  byServer: Record<Outcome, number>[];
  /** Per minute window: admitted (counted by the rate limit), answered 200, refused by it. */
  windows: { minute: number; admitted: number; ok: number; refused: number }[];
  /** How each call's window was found: the answer's reset header, the ledger's start time, the client's clock. */
  windowSources: Record<"header" | "ledger" | "client", number>;
  /** Calls in flight at some moment of the pause; those answered 200 before the store came back. */
  inFlightDuringPause: {
    calls: number;
    ok: number;
    okWhilePaused: number;
    okWhilePausedSentDuring: number;
    sentDuring: number;
    maxLatencyMs: number;
  };
  /** Each server's answer times (ms), the killed one's until it died. */
  latency: { p50: number; p95: number; max: number }[];
  ledger: { rows: number; byStatus: Record<string, number>; okWithoutRow: number; rowsWithoutAnswer: number };
  wrong: CallRecord[];
};

const outcomeOf = (r: CallRecord): Outcome =>
  r.status === 0
    ? `no answer (${r.clientError ?? "?"})`
    : r.status === 200
      ? "200"
      : `${r.status} ${r.code ?? "(no code)"}`;

export function analyse(records: CallRecord[], ledger: LedgerRow[], events: RunEvents): Analysis {
  const budget = new Big(LIMITS.dailyHardUsd);
  const rowById = new Map(ledger.map((r) => [r.id, r]));
  const costOf = (r: CallRecord) => (r.usage ? callCost(r.usage.input, r.usage.output) : new Big(0));
  const ok = records.filter((r) => r.status === 200);
  const clientSettled = ok.reduce((s, r) => s.plus(costOf(r)), new Big(0));
  const ledgerSum = ledger.reduce((s, r) => s.plus(r.cost ?? 0), new Big(0));

  // ---- the first budget refusal (when its answer came), and what the calls admitted before it cost ----
  const startedAt = (r: CallRecord) => (r.requestId ? rowById.get(r.requestId)?.startedAtMs : undefined);
  const budgetRefusals = records.filter((r) => r.status === 429 && r.code === "budget_exceeded");
  const first = [...budgetRefusals].sort((a, b) => a.receivedAt - b.receivedAt)[0];
  let spentBefore: Big | null = null;
  let admittedUnknown = 0;
  if (first) {
    spentBefore = ok
      .filter((r) => {
        if (r.admittedAt !== null) return r.admittedAt <= first.receivedAt;
        admittedUnknown++;
        return r.sentAt <= first.receivedAt;
      })
      .reduce((s, r) => s.plus(costOf(r)), new Big(0));
  }
  const spentShare = spentBefore ? Number(spentBefore.div(budget).toFixed(6)) : null;

  // ---- requests per minute window, in the window the server counted each call in ----
  const windowSources = { header: 0, ledger: 0, client: 0 };
  // The server counted the call at some t in [sent, received] and said its window ends in `reset` (whole seconds,
  // rounded up: x-ratelimit-reset-requests on an admitted call, Retry-After on a refusal), so the window's end is
  // in (sent + reset − 1 s, received + reset]: one minute boundary, unless the call took about a minute.
  const windowOf = (r: CallRecord, reset: number | null): number => {
    if (reset !== null) {
      const lo = r.sentAt + reset - 1000;
      const end = Math.floor((r.receivedAt + reset) / 60_000) * 60_000;
      if (end > lo && end - 60_000 <= lo) {
        windowSources.header++;
        return end / 60_000 - 1;
      }
    }
    const at = startedAt(r);
    if (at !== undefined) {
      windowSources.ledger++;
      return Math.floor(at / 60_000);
    }
    windowSources.client++;
    return Math.floor(r.sentAt / 60_000);
  };
  const perWindow = new Map<number, { minute: number; admitted: number; ok: number; refused: number }>();
  const bump = (minute: number, field: "admitted" | "ok" | "refused") => {
    const w = perWindow.get(minute) ?? { minute, admitted: 0, ok: 0, refused: 0 };
    w[field]++;
    perWindow.set(minute, w);
  };
  for (const r of records) {
    if (r.status === 429 && r.code === "rate_limit_exceeded")
      bump(windowOf(r, r.retryAfter === null ? null : r.retryAfter * 1000), "refused");
    else if (r.status === 200 || r.rateLimit) {
      const minute = windowOf(r, r.rateLimit ? resetMs(r.rateLimit.reset) : null);
      bump(minute, "admitted");
      if (r.status === 200) bump(minute, "ok");
    }
  }
  const windows = [...perWindow.values()].sort((a, b) => a.minute - b.minute);

  // ---- every answer's outcome, by phase and by server; the ones no rule allows ----
  const pause = events.pause;
  const phaseOf = (r: CallRecord): Phase => {
    if (!pause || r.receivedAt < pause.pausedAt) return "before the pause";
    if (r.sentAt <= pause.resumedAt + PLAN.pauseGraceMs) return "during the pause";
    return "after the pause";
  };
  const outcomes = Object.fromEntries(PHASES.map((p) => [p, {}])) as Analysis["outcomes"];
  const byServer: Analysis["byServer"] = [];
  const wrong: CallRecord[] = [];
  for (const r of records) {
    const outcome = outcomeOf(r);
    const phase = phaseOf(r);
    outcomes[phase][outcome] = (outcomes[phase][outcome] ?? 0) + 1;
    byServer[r.target] ??= {};
    byServer[r.target]![outcome] = (byServer[r.target]![outcome] ?? 0) + 1;
    if (!allowed(r, phase, events)) wrong.push(r);
  }

  // Calls in flight at some moment of the pause: how they fared, and how many were answered 200 while the store
  // could not answer (served without it: from what the process held, or let through uncounted).
  const overlapping = pause
    ? records.filter((r) => r.sentAt < pause.resumedAt && r.receivedAt > pause.pausedAt)
    : [];
  const answeredWhilePaused = pause
    ? overlapping.filter((r) => r.status === 200 && r.receivedAt < pause.resumedAt)
    : [];
  const inFlightDuringPause = {
    calls: overlapping.length,
    ok: overlapping.filter((r) => r.status === 200).length,
    okWhilePaused: answeredWhilePaused.length,
    okWhilePausedSentDuring: answeredWhilePaused.filter((r) => pause && r.sentAt >= pause.pausedAt).length,
    sentDuring: pause ? overlapping.filter((r) => r.sentAt >= pause.pausedAt).length : 0,
    maxLatencyMs: Math.max(
      0,
      ...overlapping.filter((r) => r.status !== 0).map((r) => r.receivedAt - r.sentAt),
    ),
  };
  const latency = byServer.map((_, t) => {
    const ms = records.filter((r) => r.target === t && r.status !== 0).map((r) => r.receivedAt - r.sentAt);
    return { p50: quantile(ms, 0.5), p95: quantile(ms, 0.95), max: Math.max(0, ...ms) };
  });

  const byStatus: Record<string, number> = {};
  for (const row of ledger) byStatus[row.status] = (byStatus[row.status] ?? 0) + 1;
  const answeredIds = new Set(records.filter((r) => r.requestId).map((r) => r.requestId!));
  const ledgerFigures = {
    rows: ledger.length,
    byStatus,
    okWithoutRow: ok.filter((r) => !r.requestId || !rowById.has(r.requestId)).length,
    rowsWithoutAnswer: ledger.filter((row) => !answeredIds.has(row.id)).length,
  };

  const rpmRefusals = records.filter((r) => r.status === 429 && r.code === "rate_limit_exceeded").length;
  const maxAdmitted = Math.max(0, ...windows.map((w) => w.admitted));
  const maxOk = Math.max(0, ...windows.map((w) => w.ok));
  const usd = (b: Big) => `$${b.toFixed(6)}`;
  const checks: Check[] = [
    {
      name: "settled cost (client: 200 answers × tokens × price) ≤ the budget",
      pass: clientSettled.lte(budget),
      detail: `${usd(clientSettled)} of ${usd(budget)} (${pct(clientSettled.div(budget))})`,
    },
    {
      name: "the ledger's sum of cost ≤ the budget",
      pass: ledgerSum.lte(budget),
      detail: `${usd(ledgerSum)} of ${usd(budget)} (${pct(ledgerSum.div(budget))})`,
    },
    {
      name: `spent before the first budget refusal ≥ ${PLAN.minSpentShare * 100} % of the budget`,
      pass: spentShare !== null && spentShare >= PLAN.minSpentShare,
      detail:
        spentBefore && first
          ? `${usd(spentBefore)} (${pct(spentBefore.div(budget))}) admitted before call ${first.i + 1} was refused${admittedUnknown ? ` (${admittedUnknown} by the time they were sent)` : ""}`
          : "no call was refused by the budget",
    },
    {
      name: `requests per minute window ≤ ${LIMITS.requestsPerMinute} (the key's limit)`,
      pass: maxAdmitted <= LIMITS.requestsPerMinute,
      detail: `at most ${maxAdmitted} counted (${maxOk} answered 200) in one window, over ${windows.length} window(s)`,
    },
    {
      name: "every answer is a 200 or a refusal with the right status and code",
      pass: wrong.length === 0,
      detail: wrong.length
        ? `${wrong.length} not: ${[...new Set(wrong.map((r) => `${outcomeOf(r)} at ${r.target}`))].slice(0, 4).join("; ")}`
        : "429 budget_exceeded / rate_limit_exceeded; 429 limits_unavailable (or 503 with a code) while the store was paused; no answer only from the killed server",
    },
    {
      name: "both limits bit (the run tests them)",
      pass: budgetRefusals.length > 0 && rpmRefusals > 0,
      detail: `${budgetRefusals.length} budget refusals, ${rpmRefusals} rate-limit refusals`,
    },
  ];
  return {
    checks,
    budgetUsd: budget.toFixed(),
    clientSettledUsd: clientSettled.toFixed(),
    ledgerUsd: ledgerSum.toFixed(),
    spentBeforeFirstRefusalUsd: spentBefore?.toFixed() ?? null,
    spentShareBeforeFirstRefusal: spentShare,
    firstRefusalCall: first ? first.i + 1 : null,
    outcomes,
    byServer,
    windows,
    windowSources,
    inFlightDuringPause,
    latency,
    ledger: ledgerFigures,
    wrong,
  };
}

/** Whether an answer is one the run allows: a 200, a limit's refusal, fail-closed while paused, the dead server. */
function allowed(r: CallRecord, phase: Phase, events: RunEvents): boolean {
  if (r.status === 200) return true;
  if (r.status === 429 && (r.code === "budget_exceeded" || r.code === "rate_limit_exceeded")) return true;
  if (r.status === 0) return r.target === events.kill.target && r.receivedAt >= events.kill.at;
  // The store cannot answer: the call is refused (fail closed) with a status a client retries and a code.
  if (phase === "during the pause")
    return (
      (r.status === 429 && r.code === "limits_unavailable") ||
      (r.status === 503 && !!r.code && r.code !== "internal_error")
    );
  return false;
}

/** A Go-style duration ("37s", "1m0s", "1.5s", "12ms") in ms; null when it is not one. */
export function resetMs(text: string): number | null {
  const m = /^(?:(\d+)h)?(?:(\d+)m(?!s))?(?:([\d.]+)s)?(?:(\d+)ms)?$/.exec(text.trim());
  if (!m || text.trim() === "") return null;
  const [, h, min, s, ms] = m;
  return (Number(h ?? 0) * 3600 + Number(min ?? 0) * 60 + Number(s ?? 0)) * 1000 + Number(ms ?? 0);
}

const pct = (b: Big) => `${b.times(100).toFixed(2)} %`;
