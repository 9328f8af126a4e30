import "server-only";
import { eq } from "drizzle-orm";
import type { Database } from "@/db";
import { sqlState } from "@/db/client";
import { type sysAgentAudit, sysAgentTurn, usageDaily } from "@/db/schema";
import { dependencyFailure } from "@/lib/core/errors/dependency";
import { type BatchLag, countFailure } from "@/lib/core/errors/failures";
import { log } from "@/lib/core/process/log";
import { addCost } from "@/lib/gateway/pricing";
import type { TurnEvent, TurnSummary } from "@/lib/turns/events";
import type { TurnObserver, TurnStart } from "@/lib/turns/observer";
import { chainAudit, executeTogether, type UnchainedAudit } from "./audit-chain";
import { jsonInsert } from "./json-insert";
import {
  auditColumns,
  auditOf,
  closedTurn,
  requestAudit,
  rollupOf,
  stopAudit,
  turnStartColumns,
} from "./recorder";
import { ROLLUP_SUMS, ROLLUP_UPSERT } from "./rollup-sql";

type Audit = { type: (typeof sysAgentAudit.$inferInsert)["type"]; payload: Record<string, unknown> };
type OpenTurn = { turn: TurnStart; audits: Audit[] };
/** One ended call: its rows are always written together (one batch, or one transaction of its own). */
type Closed = {
  turn: typeof sysAgentTurn.$inferInsert;
  audits: UnchainedAudit[];
  rollup: typeof usageDaily.$inferInsert;
  endedAt: number;
};

export type BatchOptions = {
  /** Write at the latest this long after a call ends, when the writers are idle (ms). */
  maxDelayMs?: number;
  /** At most this many calls in one batch (one transaction). */
  maxTurns?: number;
  /** The backlog's bound in calls (ledger rows) not yet written: `end()` waits for room beyond it. */
  maxRows?: number;
  /** The backlog's bound in age (ms): while its oldest call waits longer, new calls wait to be admitted. */
  maxAgeMs?: number;
  /** Batches written at once (each in its own transaction). */
  writers?: number;
  /** How long `admit()` waits for room before it gives up (the API then answers 503). */
  admitWaitMs?: number;
  /**
   * How long a batch is retried while the database is away (refused, hung, timed out) before its calls are
   * counted as failed. Meanwhile the backlog ages and new calls are refused (503), so it stays bounded.
   */
  outageRetryMs?: number;
};

/** PostgreSQL SQLSTATE classes that no retry of the same rows can fix: data exceptions, constraint violations. */
const DATA_ERROR = /^(22|23)/;

/**
 * The governance recorder for short calls (the /v1 API): a call is kept in memory while it runs and written
 * whole when it ends (its closed ledger row, its audit events in seq order, its rollup line), in batches of up to
 * `maxTurns` calls, written when the batch is full or `maxDelayMs` after its first call ended; `writers` batches
 * are written at once. A batch is one transaction: the audit chains' heads locked and read (audit-chain.ts),
 * then one statement (one JSON parameter per table, see jsonInsert) however many calls it holds; its rollup lines
 * are summed per key first.
 *
 * The backlog is bounded: at most `maxRows` ended calls wait (a call's `end()` waits for room, so its reply
 * waits: backpressure), and `admit()` holds new calls back while the backlog is full or its oldest call is older
 * than `maxAgeMs`, up to `admitWaitMs` (then the API answers 503 with Retry-After). A crash therefore loses at
 * most `maxRows` calls of at most about `maxAgeMs`; a graceful stop writes them all (`flush()`).
 *
 * Every row is cleaned (NUL, lone surrogates) before it is queued; a batch that fails anyway is written again
 * call by call, each in its own transaction, so one bad call never takes the others down; a call that still
 * fails is logged and counted.
 */
export class BatchedGovernanceRecorder implements TurnObserver {
  private readonly open = new Map<string, OpenTurn>();
  private queue: Closed[] = [];
  private timer: NodeJS.Timeout | null = null;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly inFlightBatches: Closed[][] = [];
  /** Calls queued, being written, or granted room and about to be queued. */
  private pending = 0;
  private readonly roomWaiters: (() => void)[] = [];
  private progressWaiters: (() => void)[] = [];
  private counters = { rowsWritten: 0, rowsFailed: 0, callsRefused: 0 };
  private readonly maxDelayMs: number;
  private readonly maxTurns: number;
  private readonly maxRows: number;
  private readonly maxAgeMs: number;
  private readonly writers: number;
  private readonly admitWaitMs: number;
  private readonly outageRetryMs: number;

  constructor(
    private readonly database: () => Promise<Database>,
    options: BatchOptions = {},
  ) {
    this.maxDelayMs = options.maxDelayMs ?? 25;
    this.maxRows = Math.max(1, options.maxRows ?? 1_000);
    this.maxTurns = Math.max(1, Math.min(options.maxTurns ?? 200, this.maxRows));
    this.maxAgeMs = options.maxAgeMs ?? 2_000;
    this.writers = Math.max(1, options.writers ?? 2);
    this.admitWaitMs = options.admitWaitMs ?? 1_000;
    this.outageRetryMs = options.outageRetryMs ?? 5 * 60_000;
  }

  async start(turn: TurnStart): Promise<void> {
    this.open.set(turn.turnId, { turn, audits: [requestAudit(turn)] });
  }

  event(turnId: string, event: TurnEvent): void {
    const audit = auditOf(event);
    if (audit) this.open.get(turnId)?.audits.push(audit);
  }

  async end(summary: TurnSummary): Promise<void> {
    const open = this.open.get(summary.turnId);
    this.open.delete(summary.turnId);
    if (!open) return;
    const stop = stopAudit(summary);
    if (stop) open.audits.push(stop);
    const { turn } = open;
    const closed: Closed = {
      // Object.assign, not two spreads: on V8 spreading these two objects into one costs ~60 µs (measured).
      // Not cleaned here: jsonInsert cleans a batch whose JSON shows a NUL or a lone surrogate (rarely).
      turn: Object.assign(turnStartColumns(turn), closedTurn(summary)),
      audits: open.audits.map((a, i) => auditColumns(turn, i + 1, a)),
      rollup: rollupOf(turn, summary),
      endedAt: 0,
    };
    await this.room();
    closed.endedAt = Date.now();
    this.queue.push(closed);
    if (this.queue.length >= this.maxTurns) this.pump();
    else this.timer ??= setTimeout(() => this.pump(), this.maxDelayMs);
  }

  /**
   * Waits (up to `admitWaitMs`) while the backlog is full, by rows or by age; false when it stayed full, and the
   * caller should be refused (503 with Retry-After) rather than add to it.
   */
  async admit(): Promise<boolean> {
    if (!this.full()) return true;
    const deadline = Date.now() + this.admitWaitMs;
    while (this.full()) {
      const left = deadline - Date.now();
      if (left <= 0) {
        this.counters.callsRefused += 1;
        return false;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 100));
        this.progressWaiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return true;
  }

  /** The backlog now (shown on /api/health). */
  stats(): BatchLag {
    return {
      callsInProgress: this.open.size,
      rowsWaiting: this.pending,
      oldestAgeMs: this.oldestAgeMs(),
      batchesInFlight: this.inFlight.size,
      callsWaitingForRoom: this.roomWaiters.length,
      ...this.counters,
      limits: { maxRows: this.maxRows, maxAgeMs: this.maxAgeMs, writers: this.writers },
    };
  }

  /** Writes everything that has ended (calls waiting for room included); resolves when it is all written or counted. */
  async flush(): Promise<void> {
    for (;;) {
      this.pump(true);
      if (this.inFlight.size) await Promise.race(this.inFlight);
      else if (this.pending || this.roomWaiters.length) await new Promise((resolve) => setImmediate(resolve));
      else return;
    }
  }

  private full(): boolean {
    return this.pending + this.roomWaiters.length >= this.maxRows || this.oldestAgeMs() >= this.maxAgeMs;
  }

  private oldestAgeMs(): number {
    let oldest = Number.POSITIVE_INFINITY;
    for (const batch of this.inFlightBatches) if (batch[0]) oldest = Math.min(oldest, batch[0].endedAt);
    if (this.queue[0]) oldest = Math.min(oldest, this.queue[0].endedAt);
    return Number.isFinite(oldest) ? Math.max(0, Date.now() - oldest) : 0;
  }

  /** Resolves when the call has room in the backlog (counted in `pending` from then on). */
  private room(): Promise<void> {
    if (this.pending < this.maxRows && !this.roomWaiters.length) {
      this.pending += 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.roomWaiters.push(resolve));
  }

  /** Starts writing queued calls while a writer is free: full batches, or whatever waits when `due`. */
  private pump(due = true): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    while (
      this.inFlight.size < this.writers &&
      this.queue.length &&
      (due || this.queue.length >= this.maxTurns)
    ) {
      const batch = this.queue.splice(0, this.maxTurns);
      this.inFlightBatches.push(batch);
      const writing: Promise<void> = this.write(batch).finally(() => {
        this.inFlight.delete(writing);
        this.inFlightBatches.splice(this.inFlightBatches.indexOf(batch), 1);
        this.pending -= batch.length;
        this.afterWrite();
      });
      this.inFlight.add(writing);
    }
  }

  private afterWrite(): void {
    // Room for waiting calls, in the order they came.
    while (this.roomWaiters.length && this.pending < this.maxRows) {
      this.pending += 1;
      this.roomWaiters.shift()!();
    }
    const waiters = this.progressWaiters;
    this.progressWaiters = [];
    for (const wake of waiters) wake();
    // A full batch goes as soon as a writer is free; a partial one waits for the timer, so batches stay large
    // under load (a batch's fixed cost is most of a small one's) and a call waits at most `maxDelayMs` more.
    if (this.queue.length >= this.maxTurns) this.pump(false);
    if (this.queue.length) this.timer ??= setTimeout(() => this.pump(), this.maxDelayMs);
  }

  private async write(batch: Closed[]): Promise<void> {
    let error: unknown;
    let outage = false;
    const outageEnds = Date.now() + this.outageRetryMs;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.insert(batch);
        this.counters.rowsWritten += batch.length;
        return;
      } catch (e) {
        error = e;
        // A try whose commit was lost with its connection did write the batch (one transaction: all of it), and
        // its rows' primary keys refuse this one: written once, not twice.
        if (outage && sqlState(e) === "23505" && (await this.written(batch))) {
          this.counters.rowsWritten += batch.length;
          return;
        }
        // Bad rows fail the same way every time: go straight to writing them one call at a time.
        if (DATA_ERROR.test(sqlState(e))) break;
        // The database is away: these calls were answered, so their rows wait for it (the backlog's bounds
        // refuse new calls meanwhile).
        if (dependencyFailure(e) && Date.now() < outageEnds) {
          outage = true;
          await new Promise((resolve) => setTimeout(resolve, Math.min(200 * attempt, 2_000)));
          continue;
        }
        if (attempt >= 3) break;
        await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
      }
    }
    if (batch.length === 1) return this.failed(batch, error);
    log.warn(
      { err: errorSummary(error), turns: batch.length },
      "ledger batch write failed; writing its calls one by one",
    );
    for (const call of batch) {
      try {
        await this.insert([call]);
        this.counters.rowsWritten += 1;
      } catch (e) {
        this.failed([call], e);
      }
    }
  }

  /** Whether a batch is in the ledger already (its first call's row: a batch is written whole or not at all). */
  private async written(batch: Closed[]): Promise<boolean> {
    const first = batch[0]?.turn.id;
    if (!first) return false;
    try {
      const db = await this.database();
      const rows = await db
        .select({ id: sysAgentTurn.id })
        .from(sysAgentTurn)
        .where(eq(sysAgentTurn.id, first))
        .limit(1);
      return rows.length > 0;
    } catch {
      return false;
    }
  }

  private failed(calls: Closed[], error: unknown): void {
    countFailure("ledger", calls.length);
    this.counters.rowsFailed += calls.length;
    log.error(
      { err: errorSummary(error), turnIds: calls.map((c) => c.turn.id) },
      "ledger write failed; the reply was not affected",
    );
  }

  private async insert(batch: Closed[]): Promise<void> {
    const db = await this.database();
    // Each table's rows as one JSON parameter (see jsonInsert), the inserts together in one statement, after
    // the audit chains' heads are locked in the same transaction: two round trips a batch. The audit rows are
    // chained here, on every attempt, so a retried batch gets fresh ids, places and hashes.
    await db.transaction(async (tx) => {
      const audits = await chainAudit(
        tx,
        batch.flatMap((c) => c.audits),
      );
      await executeTogether(tx, [
        ...jsonInsert(
          sysAgentTurn,
          batch.map((c) => c.turn),
        ),
        ...audits,
        ...jsonInsert(usageDaily, mergeRollups(batch.map((c) => c.rollup)), ROLLUP_UPSERT),
      ]);
    });
  }
}

/** The error for the log: its message and code, not the batch's parameters (drizzle's error carries them all). */
function errorSummary(error: unknown): { message: string; code: string } {
  const cause = (error as { cause?: unknown })?.cause;
  const message =
    cause instanceof Error ? cause.message : error instanceof Error ? error.message : String(error);
  return { message, code: sqlState(error) };
}

/**
 * Sums rollup lines with the same key (one statement may not update a row twice), sorted by key, so batches
 * written at once lock the rollup rows they share in the same order (no deadlock).
 */
function mergeRollups(lines: (typeof usageDaily.$inferInsert)[]): (typeof usageDaily.$inferInsert)[] {
  const byKey = new Map<string, typeof usageDaily.$inferInsert>();
  for (const line of lines) {
    const key = [
      line.tenantId,
      line.day,
      line.userId,
      line.source,
      line.servedAdapter,
      line.servedModel,
    ].join("\u0000");
    const seen = byKey.get(key);
    if (!seen) {
      byKey.set(key, { ...line });
      continue;
    }
    for (const field of ROLLUP_SUMS) seen[field] = (seen[field] ?? 0) + (line[field] ?? 0);
    seen.cost = addCost(seen.cost ?? "0", line.cost ?? "0") ?? "0";
  }
  return [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, line]) => line);
}
