import type { Database } from "@/db";
import { sysAgentAudit, sysAgentTurn, usageDaily } from "@/db/schema";
import type { AgentEvent, TurnSummary } from "@/lib/agent/events";
import type { TurnObserver, TurnStart } from "@/lib/agent/observer";
import { addCost } from "@/lib/gateway/pricing";
import { log } from "@/lib/log";
import { countFailure } from "./health";
import { maskSecrets } from "./mask";
import { auditOf, closedTurn, ROLLUP_ADD, ROLLUP_KEY, requestAudit, rollupOf, stopAudit } from "./recorder";

type Audit = { type: (typeof sysAgentAudit.$inferInsert)["type"]; payload: Record<string, unknown> };
type OpenTurn = { turn: TurnStart; audits: Audit[] };
type Closed = {
  turn: typeof sysAgentTurn.$inferInsert;
  audits: (typeof sysAgentAudit.$inferInsert)[];
  rollup: typeof usageDaily.$inferInsert;
};

export type BatchOptions = {
  /** Write at the latest this long after a turn ends (ms). */
  maxDelayMs?: number;
  /** Write at once when this many turns wait. */
  maxTurns?: number;
};

const ROLLUP_SUMS = [
  "requests",
  "failures",
  "inputTokens",
  "cachedInputTokens",
  "cacheWriteTokens",
  "outputTokens",
  "reasoningTokens",
  "latencyMsTotal",
] as const;

/**
 * The governance recorder for short calls (the /v1 API): a turn is kept in memory while it runs and written
 * whole when it ends (its closed ledger row, its audit events in seq order, its rollup line) in batches: one
 * transaction per batch of up to `maxTurns` turns or `maxDelayMs`, whichever comes first. Nothing touches the
 * database on the request's path, and a batch costs three statements however many calls it holds.
 * The price: a call appears in the ledger up to `maxDelayMs` after it ended, not while it runs, and a crash
 * loses the batch not yet written (a graceful stop writes it: `flush()`).
 */
export class BatchedGovernanceRecorder implements TurnObserver {
  private readonly open = new Map<string, OpenTurn>();
  private queue: Closed[] = [];
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();
  private readonly maxDelayMs: number;
  private readonly maxTurns: number;

  constructor(
    private readonly database: () => Promise<Database>,
    options: BatchOptions = {},
  ) {
    this.maxDelayMs = options.maxDelayMs ?? 25;
    this.maxTurns = options.maxTurns ?? 200;
  }

  async start(turn: TurnStart): Promise<void> {
    this.open.set(turn.turnId, { turn, audits: [requestAudit(turn)] });
  }

  event(turnId: string, event: AgentEvent): void {
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
    this.queue.push({
      turn: {
        id: turn.turnId,
        tenantId: turn.tenantId,
        userId: turn.userId,
        conversationId: turn.conversationId,
        source: turn.source,
        apiKeyId: turn.apiKeyId ?? null,
        requestedModel: turn.requestedModel,
        startedAt: turn.startedAt,
        ...closedTurn(summary),
      },
      audits: open.audits.map((a, i) => ({
        tenantId: turn.tenantId,
        userId: turn.userId,
        turnId: turn.turnId,
        conversationId: turn.conversationId,
        seq: i + 1,
        type: a.type,
        payload: maskSecrets(a.payload),
      })),
      rollup: rollupOf(turn, summary),
    });
    if (this.queue.length >= this.maxTurns) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.maxDelayMs);
  }

  /** Writes everything that has ended; resolves when it is in the database (or its failure is counted). */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.queue;
    this.queue = [];
    // One batch at a time, in order.
    this.writing = this.writing.then(() => (batch.length ? this.write(batch) : undefined));
    return this.writing;
  }

  private async write(batch: Closed[], attempt = 1): Promise<void> {
    try {
      const db = await this.database();
      await db.transaction(async (tx) => {
        await tx.insert(sysAgentTurn).values(batch.map((c) => c.turn));
        const audits = batch.flatMap((c) => c.audits);
        if (audits.length) await tx.insert(sysAgentAudit).values(audits);
        await tx
          .insert(usageDaily)
          .values(mergeRollups(batch.map((c) => c.rollup)))
          .onConflictDoUpdate({ target: ROLLUP_KEY, set: ROLLUP_ADD });
      });
    } catch (error) {
      if (attempt < 3) {
        await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
        return this.write(batch, attempt + 1);
      }
      countFailure("ledger");
      log.error(
        { err: error, turns: batch.length },
        "ledger batch write failed three times; the replies were not affected",
      );
    }
  }
}

/** Sums rollup lines with the same key: one statement may not update a row twice. */
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
  return [...byKey.values()];
}
