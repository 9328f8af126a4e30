import { addCost } from "@/lib/gateway/pricing";
import {
  addUsage,
  type CostStatus,
  combineCostStatus,
  type GuardrailVerdict,
  type Stamp,
  type Usage,
  ZERO_USAGE,
} from "@/lib/gateway/types";
import { cancelledResult, type StoredMessage } from "@/lib/turns/conversation";
import type { ChatTurnSummary, ToolTraceEntry, TurnStatus, TurnSummary } from "@/lib/turns/events";
import { ToolUses } from "./tool-uses";

/** What one turn has done so far: its new messages, tool trace, spend and status, and the summary it closes with. */

const VERDICTS: GuardrailVerdict[] = ["passed", "logged", "warned", "redacted", "blocked"];

export class TurnProgress {
  readonly startedAt = new Date();
  private readonly started = performance.now();
  /** The turn's new messages, in order; the first `storedCount` are already in the conversation store. */
  readonly messages: StoredMessage[] = [];
  storedCount = 0;
  readonly trace: ToolTraceEntry[] = [];
  /** What the turn's tool calls used (the skills it loaded), kept however the turn ends. */
  readonly uses = new ToolUses();
  status: TurnStatus = "failed";
  error: TurnSummary["error"];
  rounds = 0;
  private usage: Usage = ZERO_USAGE;
  private cost: string | null = "0";
  private costStatus: CostStatus = "priced";
  private lastStamp: Stamp | undefined;
  private firstTokenMs: number | null = null;
  private cacheHits = 0;
  /** The strongest guardrail verdict of the turn's model calls (a redaction in round 1 stays on the row). */
  private guardrail: GuardrailVerdict | undefined;

  constructor(
    readonly turnId: string,
    readonly conversationId: string,
    readonly requestedModel: string,
  ) {}

  /** Milliseconds since the turn started. */
  elapsedMs(): number {
    return Math.round(performance.now() - this.started);
  }

  /**
   * The answer as the user saw it: the turn's last assistant message when it called no tools (empty when the
   * turn ended in a tool round, failed before any text, or was stopped before the model said anything).
   */
  answerText(): string {
    const shown = this.messages.filter((m) => m.kind !== "display");
    const last = shown[shown.length - 1];
    return last?.role === "assistant" && !last.toolCalls?.length ? last.content : "";
  }

  /** The first text or tool call of the turn, in whichever round it comes. */
  markFirstToken(): void {
    this.firstTokenMs ??= Math.round(performance.now() - this.started);
  }

  /** A model call that answered: its tokens and cost count, and it names who served the turn. */
  addAnswer(stamp: Stamp): void {
    this.lastStamp = stamp;
    this.addVerdict(stamp);
    this.addSpend(stamp.usage, stamp.cost, stamp.costStatus);
    if (stamp.cacheHit) this.cacheHits++;
  }

  /** A model call that failed still names who was tried. */
  addFailure(stamp: Stamp): void {
    this.lastStamp = stamp;
    this.addVerdict(stamp);
  }

  private addVerdict(stamp: Stamp): void {
    if (stamp.guardrail && VERDICTS.indexOf(stamp.guardrail) >= VERDICTS.indexOf(this.guardrail ?? "passed"))
      this.guardrail = stamp.guardrail;
  }

  /** Tokens spent by the model or on the user's behalf by a tool (a sub-agent). */
  addSpend(
    usage: Usage,
    cost: string | null,
    costStatus: CostStatus = cost === null ? "unpriced" : "priced",
  ): void {
    this.usage = addUsage(this.usage, usage);
    this.cost = addCost(this.cost, cost);
    this.costStatus = combineCostStatus(this.costStatus, costStatus);
  }

  /**
   * The messages still to store, with every assistant tool call answered (providers reject dangling calls), and
   * without image bytes: images a tool added go to this turn's rounds only; the message's data describes them.
   */
  unstoredMessages(): StoredMessage[] {
    return closeDanglingCalls(this.messages)
      .slice(this.storedCount)
      .map((m) => {
        if (m.role !== "user" || !m.images) return m;
        const { images: _bytes, ...stored } = m;
        return stored;
      });
  }

  summary(): ChatTurnSummary {
    const stamp = this.lastStamp;
    return {
      turnId: this.turnId,
      conversationId: this.conversationId,
      status: this.status,
      requestedModel: this.requestedModel,
      servedProvider: stamp?.servedProvider ?? null,
      servedAdapter: stamp?.servedAdapter ?? null,
      servedModel: stamp?.servedModel ?? null,
      fallbackIndex: stamp?.fallbackIndex ?? null,
      attempts: stamp?.attempts ?? [],
      ...(stamp?.strategy ? { routing: stamp.strategy } : {}),
      ...(this.guardrail ? { guardrail: this.guardrail } : {}),
      usage: this.usage,
      cost: this.cost,
      costStatus: this.costStatus,
      rounds: this.rounds,
      toolTrace: this.trace,
      timeToFirstTokenMs: this.firstTokenMs,
      latencyMs: Math.round(performance.now() - this.started),
      cacheHits: this.cacheHits,
      ...this.uses.summary(),
      error: this.error,
    };
  }
}

function closeDanglingCalls(turn: StoredMessage[]): StoredMessage[] {
  const answered = new Set(turn.flatMap((m) => (m.role === "tool" ? [m.toolCallId] : [])));
  const out: StoredMessage[] = [];
  for (const m of turn) {
    out.push(m);
    if (m.role === "assistant" && m.toolCalls?.length) {
      for (const c of m.toolCalls) if (!answered.has(c.id)) out.push(cancelledResult(c.id, c.name));
    }
  }
  return out;
}
