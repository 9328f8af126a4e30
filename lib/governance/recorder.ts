import "server-only";
import { sql } from "drizzle-orm";
import type { Database } from "@/db";
import { type AuditType, sysAgentTurn, usageDaily } from "@/db/schema";
import { countFailure } from "@/lib/core/errors/failures";
import { log } from "@/lib/core/process/log";
import { cleanRow } from "@/lib/core/text/clean-text";
import { maskSecrets, maskText } from "@/lib/core/text/mask";
import type { CostStatus } from "@/lib/gateway/types";
import type { TurnEvent, TurnSummary } from "@/lib/turns/events";
import type { TurnObserver, TurnStart } from "@/lib/turns/observer";
import { attributionColumns } from "./attribution";
import { writeChainedAudit } from "./audit-chain";
import { undoSweptRollup } from "./ledger";
import { ROLLUP_ADD, ROLLUP_KEY } from "./rollup-sql";

type OpenTurn = TurnStart & { seq: number; writes: Promise<void> };

/** Audit payloads keep what the model saw, up to this size per field. */
const AUDIT_TEXT_LIMIT = 8_000;

/**
 * Records every turn: a `running` ledger row and a `request` event when it starts, one audit event per
 * tool call, result, refusal, fallback and error (seq strictly increasing, no gaps), and the closed ledger row
 * with its daily rollup in one transaction at the end. Every row is cleaned first (NUL and lone surrogates become
 * U+FFFD, see clean-text.ts), so a caller's odd bytes cannot fail the write. Failures are logged and counted, never
 * thrown.
 */
export class GovernanceRecorder implements TurnObserver {
  private readonly open = new Map<string, OpenTurn>();
  constructor(
    private readonly database: () => Promise<Database>,
    /** The process running the turns (stamped on their running rows, so a sweep knows when it died). */
    private readonly options: { instanceId?: string } = {},
  ) {}

  async start(turn: TurnStart): Promise<void> {
    const open: OpenTurn = { ...turn, seq: 0, writes: Promise.resolve() };
    this.open.set(turn.turnId, open);
    try {
      const db = await this.database();
      await db.insert(sysAgentTurn).values(
        cleanRow(
          Object.assign(turnStartColumns(turn), {
            status: "running" as const,
            instanceId: this.options.instanceId ?? null,
          }),
        ),
      );
    } catch (error) {
      this.fail("ledger", error, turn.turnId);
    }
    const request = requestAudit(turn);
    this.audit(open, request.type, request.payload);
  }

  event(turnId: string, event: TurnEvent): void {
    const open = this.open.get(turnId);
    if (!open) return;
    const audit = auditOf(event);
    if (audit)
      this.audit(open, audit.type, withOffsets(audit.payload, Date.now() - open.startedAt.getTime()));
  }

  async end(summary: TurnSummary): Promise<void> {
    const open = this.open.get(summary.turnId);
    this.open.delete(summary.turnId);
    if (!open) return;
    const stop = stopAudit(summary);
    if (stop) this.audit(open, stop.type, { ...stop.payload, atMs: summary.latencyMs });
    await open.writes;
    try {
      const db = await this.database();
      await db.transaction(async (tx) => {
        // Swept while this process was alive (a stalled heartbeat): the closing values replace the sweep's.
        await undoSweptRollup(tx, { tenantId: open.tenantId, turnId: summary.turnId });
        const closed = await tx
          .update(sysAgentTurn)
          .set(cleanRow(closedTurn(summary)))
          .where(sql`${sysAgentTurn.id} = ${summary.turnId} and ${sysAgentTurn.tenantId} = ${open.tenantId}`)
          .returning({ id: sysAgentTurn.id });
        // The running row was never written (start's insert failed): the closed row is written whole, so the
        // rollup line below always has its ledger row.
        if (!closed.length)
          await tx
            .insert(sysAgentTurn)
            .values(cleanRow(Object.assign(turnStartColumns(open), closedTurn(summary))));
        await tx
          .insert(usageDaily)
          .values(cleanRow(rollupOf(open, summary)))
          .onConflictDoUpdate({ target: ROLLUP_KEY, set: ROLLUP_ADD });
      });
    } catch (error) {
      this.fail("ledger", error, summary.turnId);
    }
  }

  /**
   * Numbers the event now (so seq follows the turn's order) and writes it after the turn's earlier events, chained
   * in a transaction of its own (a drawer turn's events are seconds apart; a batch would not save much).
   */
  private audit(open: OpenTurn, type: AuditType, payload: Record<string, unknown>): void {
    const row = auditRow(open, ++open.seq, { type, payload });
    open.writes = open.writes.then(async () => {
      try {
        await writeChainedAudit(await this.database(), [row]);
      } catch (error) {
        this.fail("audit", error, open.turnId);
      }
    });
  }

  private fail(kind: "ledger" | "audit", error: unknown, turnId: string): void {
    countFailure(kind);
    log.error({ err: error, turnId }, `${kind} write failed; the reply was not affected`);
  }
}

const clip = (text: string) =>
  text.length > AUDIT_TEXT_LIMIT
    ? `${text.slice(0, AUDIT_TEXT_LIMIT)}…[${text.length - AUDIT_TEXT_LIMIT} more characters]`
    : text;

type Audit = { type: AuditType; payload: Record<string, unknown> };

/** The ledger row's columns known when a turn starts (the per-turn and the batched recorder both write them). */
export const turnStartColumns = (turn: TurnStart) => {
  const attribution = attributionColumns(turn);
  // Field by field: a spread adding keys to a literal costs microseconds on V8, and this runs for every call.
  return {
    id: turn.turnId,
    tenantId: turn.tenantId,
    userId: turn.userId,
    conversationId: turn.conversationId,
    source: turn.source,
    apiKeyId: turn.apiKeyId ?? null,
    requestedModel: turn.requestedModel,
    startedAt: turn.startedAt,
    endUser: attribution.endUser,
    tags: attribution.tags,
    requestMetadata: attribution.requestMetadata,
    promptName: turn.prompt?.name ?? null,
    promptVersion: turn.prompt?.version ?? null,
    runId: turn.runId ?? null,
  };
};

/** One audit row of a turn, masked and cleaned of bytes PostgreSQL refuses, numbered `seq` in the turn's order. */
export const auditRow = (turn: TurnStart, seq: number, audit: Audit) =>
  cleanRow(auditColumns(turn, seq, audit));

/** An audit row masked but not yet cleaned (the batched ledger cleans a batch only when it needs it). */
export const auditColumns = (turn: TurnStart, seq: number, audit: Audit) => ({
  tenantId: turn.tenantId,
  userId: turn.userId,
  turnId: turn.turnId,
  conversationId: turn.conversationId,
  seq,
  type: audit.type,
  payload: maskSecrets(audit.payload),
});

/** The `request` event that opens every turn's trail. */
export const requestAudit = (turn: TurnStart): Audit => {
  const payload: Record<string, unknown> = {
    model: turn.requestedModel,
    source: turn.source,
    message: clip(turn.message),
    toolsOffered: turn.toolsOffered,
  };
  // An edit or a regenerate names the turn it replaced, so the trail tells the two versions apart.
  if (turn.conversationId !== null && turn.replaces) payload.replaces = turn.replaces;
  if (turn.prompt) payload.prompt = turn.prompt;
  if (turn.inputs) Object.assign(payload, turn.inputs);
  return { type: "request", payload };
};

/**
 * When an event was recorded, in ms from the turn's start (`atMs`), and for a tool result when its tool started
 * (`startMs`: it ends as it is recorded). Only the per-turn recorder adds them: the replay draws its waterfall
 * from them, and a /v1 call's timings are its ledger row's.
 */
function withOffsets(payload: Record<string, unknown>, atMs: number): Record<string, unknown> {
  const out: Record<string, unknown> = { ...payload, atMs };
  if (typeof payload.durationMs === "number" && !("startMs" in payload))
    out.startMs = Math.max(0, atMs - payload.durationMs);
  return out;
}

/** The audit event a turn event becomes, if any (text deltas and notices other than fallback are not kept). */
export function auditOf(event: TurnEvent): Audit | null {
  switch (event.type) {
    case "model_call": {
      const { text, error, ...call } = event.call;
      return {
        type: "model_call",
        payload: { ...call, ...(text ? { text: clip(text) } : {}), ...(error ? { error } : {}) },
      };
    }
    case "answer":
      return { type: "answer", payload: { text: clip(event.text), status: event.status } };
    case "tool_call":
      return {
        type: "tool_call",
        payload: { callId: event.call.id, name: event.call.name, args: event.call.args, round: event.round },
      };
    case "tool_result":
      return {
        type: "tool_result",
        payload: {
          callId: event.callId,
          name: event.name,
          ok: event.ok,
          durationMs: event.durationMs,
          result: clip(event.result),
          // A message the call added for the model: its text clipped like a user's, its images named, never
          // their bytes (as attachments are); the payload is masked whole.
          ...(event.message
            ? { message: { text: clip(event.message.text), images: event.message.images } }
            : {}),
        },
      };
    case "confirmation":
      return {
        type: "confirmation",
        payload: {
          callId: event.callId,
          tool: event.name,
          decision: event.decision,
          by: event.by,
          waitedMs: event.waitedMs,
        },
      };
    case "guardrail":
      return {
        type: "guardrail",
        payload: { code: event.code, ...(event.tool ? { tool: event.tool } : {}), message: event.message },
      };
    case "notice":
      return event.code === "fallback" ? { type: "fallback", payload: { message: event.message } } : null;
    case "error":
      return { type: "error", payload: { class: event.class, message: event.message } };
    default:
      return null;
  }
}

/** The `stop` event that closes a stopped turn's trail. */
export const stopAudit = (summary: TurnSummary): Audit | null =>
  summary.status === "stopped"
    ? {
        type: "stop",
        payload: {
          reason: "stopped by the user",
          cancelledCalls: summary.toolTrace.filter((t) => t.error === "cancelled").length,
          rounds: summary.rounds,
        },
      }
    : null;

/** The ledger row's closing values. */
export function closedTurn(summary: TurnSummary) {
  return {
    status: summary.status,
    servedProvider: summary.servedProvider,
    servedAdapter: summary.servedAdapter,
    servedModel: summary.servedModel,
    attempts: summary.attempts.length,
    fallbackIndex: summary.fallbackIndex,
    routing: summary.routing ?? null,
    units: summary.units ?? null,
    guardrail: summary.guardrail ?? null,
    inputTokens: summary.usage.inputTokens,
    cachedInputTokens: summary.usage.cachedInputTokens,
    cacheWriteTokens: summary.usage.cacheWriteTokens,
    outputTokens: summary.usage.outputTokens,
    reasoningTokens: summary.usage.reasoningTokens,
    cost: summary.cost,
    costStatus: costStatusOf(summary),
    toolTrace: summary.toolTrace.map(({ name, durationMs, ok, error }) => ({
      name,
      durationMs,
      ok,
      ...(error ? { error } : {}),
    })),
    rounds: summary.rounds,
    firstTokenMs: summary.timeToFirstTokenMs,
    latencyMs: summary.latencyMs,
    errorClass: summary.error?.class ?? null,
    errorMessage: summary.error ? maskText(summary.error.message) : null,
    cacheHits: summary.cacheHits ?? 0,
    // Left unset when the turn loaded none: the row keeps its empty default (and the batch its one statement).
    skills: summary.skills?.map((s) => s.name),
    skillVersions: summary.skills?.map((s) => s.version),
  };
}

/** The turn's line of the daily rollup (added to what is there). */
export function rollupOf(turn: TurnStart, summary: TurnSummary) {
  return {
    tenantId: turn.tenantId,
    day: turn.startedAt.toISOString().slice(0, 10),
    userId: turn.userId,
    source: turn.source,
    servedAdapter: summary.servedAdapter ?? "none",
    servedModel: summary.servedModel ?? summary.requestedModel,
    requests: 1,
    failures: summary.status === "failed" ? 1 : 0,
    inputTokens: summary.usage.inputTokens,
    cachedInputTokens: summary.usage.cachedInputTokens,
    cacheWriteTokens: summary.usage.cacheWriteTokens,
    outputTokens: summary.usage.outputTokens,
    reasoningTokens: summary.usage.reasoningTokens,
    cost: summary.cost ?? "0",
    latencyMsTotal: summary.latencyMs,
    unpricedRequests: costStatusOf(summary) === "unpriced" ? 1 : 0,
  };
}

/** How a turn's cost was reached; a summary that does not say is unpriced exactly when its cost is unknown. */
export const costStatusOf = (summary: TurnSummary): CostStatus =>
  summary.costStatus ?? (summary.cost === null ? "unpriced" : "priced");
