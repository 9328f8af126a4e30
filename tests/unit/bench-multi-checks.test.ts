// The multi-instance benchmark's judge (bench/multi/checks.ts): it must fail a run that breaks a promise, and
// place each call in the minute window the server counted it in, or its pass means nothing.
import { describe, expect, it } from "vitest";
import type { CallRecord } from "@/bench/multi/calls";
import { analyse, type RunEvents, resetMs } from "@/bench/multi/checks";
import { INPUT_TOKENS, LIMITS, OUTPUT_TOKENS } from "@/bench/multi/plan";
import type { LedgerRow } from "@/bench/multi/tenant";

const MINUTE = 60_000;
const T0 = 1_800_000_000_000 - (1_800_000_000_000 % MINUTE); // the top of a minute
const events: RunEvents = { kill: { at: T0 + 10_000, target: 1 }, pause: null };

let n = 0;
function rec(over: Partial<CallRecord>): CallRecord {
  const i = n++;
  return {
    i,
    target: 0,
    sentAt: T0 + 1000,
    receivedAt: T0 + 1100,
    admittedAt: T0 + 1050,
    status: 200,
    code: null,
    message: null,
    requestId: `id-${i}`,
    usage: { input: INPUT_TOKENS, output: OUTPUT_TOKENS },
    rateLimit: { limit: LIMITS.requestsPerMinute, reset: "59s" },
    retryAfter: null,
    clientError: null,
    ...over,
  };
}
const refusal = (code: string, over: Partial<CallRecord> = {}) =>
  rec({ status: 429, code, usage: null, admittedAt: null, ...over });
const check = (records: CallRecord[], name: string, ledger: LedgerRow[] = [], ev = events) =>
  analyse(records, ledger, ev).checks.find((c) => c.name.startsWith(name))!;

describe("the multi-instance checks", () => {
  it("read OpenAI's reset durations", () => {
    expect(resetMs("37s")).toBe(37_000);
    expect(resetMs("1m0s")).toBe(60_000);
    expect(resetMs("1.5s")).toBe(1500);
    expect(resetMs("12ms")).toBe(12);
    expect(resetMs("soon")).toBeNull();
  });

  it("fail a run whose 200 answers cost more than the budget", () => {
    const calls = Math.round(Number(LIMITS.dailyHardUsd) / 0.00205) + 1;
    const records = Array.from({ length: calls }, () => rec({}));
    expect(check(records, "settled cost").pass).toBe(false);
    expect(check(records.slice(1), "settled cost").pass).toBe(true);
  });

  it("fail a ledger whose sum passes the budget", () => {
    const ledger: LedgerRow[] = [
      { id: "x", startedAtMs: T0, status: "success", cost: "1000", errorClass: null },
    ];
    expect(check([], "the ledger's sum", ledger).pass).toBe(false);
  });

  it("count what was admitted before the first budget refusal was answered, by the upstream's clock", () => {
    const early = rec({ admittedAt: T0 + 1000 });
    const refused = refusal("budget_exceeded", { receivedAt: T0 + 2000 });
    const late = rec({ admittedAt: T0 + 2500, receivedAt: T0 + 2600 });
    const a = analyse([early, refused, late], [], events);
    expect(a.spentBeforeFirstRefusalUsd).toBe("0.00205");
    expect(a.firstRefusalCall).toBe(refused.i + 1);
    expect(check([early, refused, late], "spent before").pass).toBe(false);
  });

  it("place a call in the window whose end its reset header names, across a minute boundary", () => {
    // Sent 200 ms before the top of the minute, counted just after it: the reset says a whole minute is left.
    const next = rec({
      sentAt: T0 + MINUTE - 200,
      receivedAt: T0 + MINUTE + 100,
      rateLimit: { limit: 1, reset: "1m0s" },
    });
    const prev = rec({
      sentAt: T0 + MINUTE - 900,
      receivedAt: T0 + MINUTE - 800,
      rateLimit: { limit: 1, reset: "1s" },
    });
    const a = analyse([next, prev], [], events);
    expect(a.windows.map((w) => [w.minute, w.admitted])).toEqual([
      [T0 / MINUTE, 1],
      [T0 / MINUTE + 1, 1],
    ]);
    expect(a.windowSources.header).toBe(2);
  });

  it("fail a window that counted more requests than the limit", () => {
    const records = Array.from({ length: LIMITS.requestsPerMinute + 1 }, () => rec({ usage: null }));
    expect(check(records, "requests per minute").pass).toBe(false);
    expect(check(records.slice(1), "requests per minute").pass).toBe(true);
  });

  it("allow only the limits' refusals, fail-closed answers while the store is paused, and the dead server's silence", () => {
    const paused: RunEvents = { ...events, pause: { pausedAt: T0 + 20_000, resumedAt: T0 + 25_000 } };
    const right = [
      refusal("budget_exceeded"),
      refusal("rate_limit_exceeded"),
      rec({ status: 503, code: "counters_unavailable", sentAt: T0 + 21_000, receivedAt: T0 + 22_000 }),
      rec({ status: 429, code: "limits_unavailable", sentAt: T0 + 21_500, receivedAt: T0 + 22_500 }),
      rec({
        status: 0,
        target: 1,
        sentAt: T0 + 11_000,
        receivedAt: T0 + 11_001,
        clientError: "ECONNREFUSED",
      }),
    ];
    expect(check(right, "every answer", [], paused).pass).toBe(true);
    for (const wrong of [
      rec({ status: 503, code: "counters_unavailable", sentAt: T0 + 40_000, receivedAt: T0 + 40_010 }),
      refusal("budget_exceeded", { status: 402 }),
      rec({ status: 500, code: "internal_error", sentAt: T0 + 21_000, receivedAt: T0 + 22_000 }),
      rec({ status: 429, code: "limits_unavailable", sentAt: T0 + 40_000, receivedAt: T0 + 40_010 }),
      rec({ status: 429, code: "quota_whatever", sentAt: T0 + 21_000, receivedAt: T0 + 22_000 }),
      rec({ status: 0, target: 2, clientError: "ECONNRESET" }),
    ])
      expect(check([...right, wrong], "every answer", [], paused).pass).toBe(false);
  });
});
