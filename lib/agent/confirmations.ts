import { z } from "zod";
import { ask, type ClusterBus } from "@/lib/cluster";
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

const ref = z.string().min(1).max(100);
/**
 * "Apply this user's decision on this call, if it waits on you": only the instance where the call waits (or was
 * decided) answers, with what `decideHere` found there; an unknown call, or another user's, gets no answer.
 */
export const DECIDE_CALL = ask(
  "confirm.decide",
  z.object({
    turnId: ref,
    callId: z.string().min(1).max(256),
    tenantId: ref,
    userId: ref,
    approve: z.boolean(),
  }),
  z.discriminatedUnion("status", [
    z.object({ status: z.literal("decided") }),
    z.object({
      status: z.literal("settled"),
      decision: z.enum(["approve", "deny", "timeout", "cancelled"]),
    }),
  ]),
);

const keyOf = (turnId: string, callId: string) => `${turnId}\u0000${callId}`;
const sameOwner = (a: ConfirmRequest, owner: { tenantId: string; userId: string }) =>
  a.tenantId === owner.tenantId && a.userId === owner.userId;

/**
 * The calls of this process's turns that wait for the user's Approve / Deny. A wait ends with the user's decision
 * (only the turn's own user in its tenant may give it), with `timeout` after its limit, or `cancelled` when the
 * turn's signal aborts (Stop). The composition root holds one per process; with a cluster bus, a decision made on
 * another instance is sent to this one when the call waits here, and applied here (owner checked here).
 */
export class Confirmations {
  private readonly waiting = new Map<string, Waiting>();
  private readonly settled = new Map<string, Settled>();

  constructor(private readonly options: { timeoutMs: number; now?: () => number; cluster?: ClusterBus }) {
    options.cluster?.serve(DECIDE_CALL, (q) => {
      const result = this.decideHere(q, q, q.approve);
      return result.status === "unknown" ? undefined : result;
    });
  }

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
   * The owner's decision on a waiting call, wherever it waits: here, else on the instance running the turn (asked
   * over the cluster bus, which answers within about a second). Another user's or tenant's call answers `unknown`,
   * exactly as a call that waits nowhere does, so nothing tells them it exists.
   */
  async decide(
    call: { turnId: string; callId: string },
    owner: { tenantId: string; userId: string },
    approve: boolean,
  ): Promise<DecideResult> {
    const here = this.decideHere(call, owner, approve);
    if (here.status !== "unknown" || !this.options.cluster) return here;
    const there = await this.options.cluster.ask(DECIDE_CALL, {
      turnId: call.turnId,
      callId: call.callId,
      tenantId: owner.tenantId,
      userId: owner.userId,
      approve,
    });
    return there ?? here;
  }

  /** The owner's decision on a call waiting in this process (or decided here), applied at most once. */
  decideHere(
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
