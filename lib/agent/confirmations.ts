import type { ConfirmDecision } from "@/lib/turns/events";

export type { ConfirmDecision };

/** How a wait ended: a decision, or `cancelled` when the turn was stopped while it waited. */
export type ConfirmOutcome = {
  decision: ConfirmDecision | "cancelled";
  /** Who decided (approve and deny); null for a timeout or a cancelled wait. */
  by: string | null;
  waitedMs: number;
};

/** The call a decision is for, and whose it is: only the turn's own user in its tenant may decide. */
export type ConfirmRequest = { turnId: string; callId: string; tenantId: string; userId: string };

/** A call waiting for its decision. */
export type PendingConfirmation = {
  expiresAt: Date;
  timeoutMs: number;
  outcome: Promise<ConfirmOutcome>;
};

/** What a decision request found: the call waiting (now decided), none for this user, or one already decided. */
export type DecideResult =
  | { status: "decided" }
  | { status: "unknown" }
  | { status: "settled"; decision: ConfirmDecision | "cancelled" };

type Waiting = { request: ConfirmRequest; settle: (decision: ConfirmDecision, by: string) => void };
type Settled = { request: ConfirmRequest; decision: ConfirmDecision | "cancelled"; at: number };

/** Decided calls are remembered this long, so a late answer hears "already decided" rather than "unknown". */
const SETTLED_KEEP_MS = 10 * 60_000;
const SETTLED_MAX = 2_000;

const keyOf = (turnId: string, callId: string) => `${turnId}\u0000${callId}`;
const sameOwner = (a: ConfirmRequest, owner: { tenantId: string; userId: string }) =>
  a.tenantId === owner.tenantId && a.userId === owner.userId;

/**
 * The calls of this process's turns that wait for the user's Approve / Deny. A wait ends with the user's decision
 * (only the turn's own user in its tenant may give it), with `timeout` after its limit, or `cancelled` when the
 * turn's signal aborts (Stop). Like Stop, a decision reaches only the process running the turn: the composition
 * root holds one per process.
 */
export class Confirmations {
  private readonly waiting = new Map<string, Waiting>();
  private readonly settled = new Map<string, Settled>();

  constructor(private readonly options: { timeoutMs: number; now?: () => number }) {}

  get timeoutMs(): number {
    return this.options.timeoutMs;
  }

  /** Opens the wait for a call's decision. A call already waiting (the same turn and call id) is refused. */
  ask(request: ConfirmRequest, signal: AbortSignal, timeoutMs = this.options.timeoutMs): PendingConfirmation {
    const key = keyOf(request.turnId, request.callId);
    if (this.waiting.has(key)) throw new Error(`call ${request.callId} already waits for a decision`);
    const started = this.now();
    const outcome = new Promise<ConfirmOutcome>((resolve) => {
      const finish = (decision: ConfirmOutcome["decision"], by: string | null) => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        this.waiting.delete(key);
        this.remember(key, { request, decision, at: this.now() });
        resolve({ decision, by, waitedMs: Math.max(0, Math.round(this.now() - started)) });
      };
      const onAbort = () => finish("cancelled", null);
      const timer = setTimeout(() => finish("timeout", null), timeoutMs);
      this.waiting.set(key, { request, settle: finish });
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
    });
    return { expiresAt: new Date(started + timeoutMs), timeoutMs, outcome };
  }

  /**
   * The owner's decision on a waiting call. Another user's or tenant's call answers `unknown`, exactly as a call
   * that never waited here does, so nothing tells them it exists.
   */
  decide(
    call: { turnId: string; callId: string },
    owner: { tenantId: string; userId: string },
    approve: boolean,
  ): DecideResult {
    const key = keyOf(call.turnId, call.callId);
    const waiting = this.waiting.get(key);
    if (waiting && sameOwner(waiting.request, owner)) {
      waiting.settle(approve ? "approve" : "deny", owner.userId);
      return { status: "decided" };
    }
    const settled = this.settled.get(key);
    if (settled && sameOwner(settled.request, owner) && this.now() - settled.at < SETTLED_KEEP_MS)
      return { status: "settled", decision: settled.decision };
    return { status: "unknown" };
  }

  /** How many calls wait now (for tests and health). */
  get pending(): number {
    return this.waiting.size;
  }

  private remember(key: string, settled: Settled): void {
    this.settled.delete(key);
    this.settled.set(key, settled);
    // Oldest first: drop what is too old, and the oldest beyond the bound.
    for (const [k, s] of this.settled) {
      if (this.settled.size <= SETTLED_MAX && settled.at - s.at < SETTLED_KEEP_MS) break;
      this.settled.delete(k);
    }
  }

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }
}

/** How long a user has to answer, as the model and the drawer read it ("60 s", "500 ms"). */
export const waitText = (ms: number): string =>
  ms < 1000 ? `${ms} ms` : `${Number.isInteger(ms / 1000) ? ms / 1000 : (ms / 1000).toFixed(1)} s`;

export const DENIED_MESSAGE = "the user denied this call";
export const timedOutMessage = (timeoutMs: number) =>
  `the user gave no answer within ${waitText(timeoutMs)}: denied`;
export const cannotAskMessage = (tool: string) =>
  `${tool} needs the user's confirmation, and no user can be asked here: not run`;
