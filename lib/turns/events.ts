import {
  type CostStatus,
  type GuardrailVerdict,
  type ImagePart,
  type MediaUnits,
  type Stamp,
  type ToolCall,
  type Usage,
  ZERO_USAGE,
} from "@/lib/gateway/types";
import type { AgentCard } from "./cards";

/** An image of a message a tool added for the model, as the drawer and the audit see it: never its bytes. */
export type AddedImageInfo = {
  type: ImagePart["mediaType"];
  size: number;
  /** A file name, or the address it was loaded from. */
  name?: string;
  /** The conversation's file it was read from (the drawer shows it from GET /api/agent/files/{id}). */
  fileId?: string;
};

/** A user-role message a tool call added for the model's next round (ToolContext.addMessage): its text, its images. */
export type AddedMessageSummary = { text: string; images: AddedImageInfo[] };

/** What the user decided about a call that needed their confirmation; `timeout`: no answer in time (a denial). */
export type ConfirmDecision = "approve" | "deny" | "timeout";

/** `interrupted`: cut by the process stopping (the shutdown deadline), not by the caller. */
export type TurnStatus = "success" | "failed" | "stopped" | "limit" | "interrupted";

export type ToolTraceEntry = {
  callId: string;
  name: string;
  durationMs: number;
  ok: boolean;
  error?: string;
};

/** Why a turn failed: the class of the call's failure (gateway or pipeline) or `internal`, and a safe message. */
export type TurnError = { class: string; message: string };

/** What the request pipeline reports on a turn (lib/pipeline decides them; the audit and the drawer show them). */
export type GuardrailCode =
  | "rate_limit"
  | "budget_hard"
  | "budget_soft"
  /** A hard budget covers the call and a model that could serve it has no price (and no assumed one). */
  | "budget_unpriced_model"
  /** A ceiling of the call's run (USD, calls, tokens, wall time) refused it. */
  | "run_ceiling"
  /** The call set no max_tokens; the tenant's ceiling was sent upstream so its budget reservation bounds it. */
  | "max_tokens_applied"
  /** The provider billed more than the call's reservation; the spend counts in full (the next call may be refused). */
  | "budget_overrun"
  /** The counter store is unreachable: soft limits were not checked for this call (hard ones fail closed). */
  | "limits_degraded"
  /** /v1: fields the serving format cannot carry were left out, as the alias's `dropUnsupported` allows. */
  | "params_dropped"
  /** The provider's own content filter filtered the prompt or the answer (Azure OpenAI). */
  | "provider_content_filter"
  /** A tenant's guardrail rule acted on a call (lib/guardrails): what it did, or that its check could not run. */
  | "guardrail_blocked"
  | "guardrail_redacted"
  | "guardrail_warned"
  | "guardrail_logged"
  | "guardrail_check_failed";

type TurnOutcome = {
  turnId: string;
  status: TurnStatus;
  requestedModel: string;
  servedProvider: string | null;
  servedAdapter: string | null;
  servedModel: string | null;
  fallbackIndex: number | null;
  attempts: Stamp["attempts"];
  /** The alias's routing strategy, when it is not plain fallback. */
  routing?: string;
  /** An images or audio call's billed units. */
  units?: MediaUnits;
  /** What the tenant's guardrail rules made of the call, when any applied. */
  guardrail?: GuardrailVerdict;
  /** Summed over every round trip of the loop, sub-agents included. */
  usage: Usage;
  cost: string | null;
  /**
   * How `cost` was reached, over every round trip (one unpriced one makes the cost unknown). Left out: unpriced
   * when `cost` is null, else priced.
   */
  costStatus?: CostStatus;
  rounds: number;
  toolTrace: ToolTraceEntry[];
  timeToFirstTokenMs: number | null;
  latencyMs: number;
  /** Model calls of the turn answered from the response cache. */
  cacheHits?: number;
  /** The skills the turn loaded (skill_load), in the order first loaded; left out: none. */
  skills?: SkillUse[];
  error?: TurnError;
};

/** A skill a turn loaded, by name and the version it got. */
export type SkillUse = { name: string; version: number };

/** How a turn of the agent loop ended: it belongs to its conversation. */
export type ChatTurnSummary = TurnOutcome & { conversationId: string };
/** How a /v1 call ended: it has no conversation. */
export type ApiTurnSummary = TurnOutcome & { conversationId: null };
export type TurnSummary = ChatTurnSummary | ApiTurnSummary;

/** What a turn streams to its caller, in order; it always ends with exactly one `done`. */
export type AgentEvent =
  | { type: "turn"; turnId: string; conversationId: string }
  | { type: "text"; delta: string }
  | { type: "tool_call"; call: ToolCall; round: number }
  | {
      type: "tool_result";
      callId: string;
      name: string;
      ok: boolean;
      result: string;
      durationMs: number;
      /** Cards the tool returned beside its result, for the drawer; the model gets only `result`. */
      cards?: AgentCard[];
      /** The message the call added, which the model reads after the round's results. */
      message?: AddedMessageSummary;
    }
  | {
      type: "notice";
      /** context: what was added to the model's context (schema summary, context items); attachment_cut: a file's text was cut to the limit. */
      code: "fallback" | "loop_limit" | "tools_unavailable" | "repeated_call" | "context" | "attachment_cut";
      message: string;
    }
  | {
      type: "guardrail";
      /** tool_not_allowed: a tool refused to this user; the others come from the request pipeline. */
      code: "tool_not_allowed" | GuardrailCode;
      tool?: string;
      message: string;
    }
  | { type: "message"; content: string; data?: Record<string, unknown> }
  /** A queued notice (a background task's result) this turn handed the model before the user's message. */
  | { type: "note"; noteType: string; text: string }
  | {
      /** A call waits for the user's Approve / Deny (POST /api/agent/turns/{turnId}/confirm) until `expiresAt`. */
      type: "confirm";
      callId: string;
      name: string;
      /** The call's arguments, masked. */
      args: Record<string, unknown>;
      expiresAt: string;
      /** The time limit from when it was asked (a browser counts down from it, whatever its clock says). */
      timeoutMs: number;
      /**
       * Why a tool that does not always ask asks now: the turn carries outside text and the call would send data to
       * `to` (a host).
       */
      reason?: { code: "outside_data"; to: string; message: string };
    }
  | {
      /** What became of a confirmation: approved or denied by `by`, or no answer in time (a denial). */
      type: "confirmation";
      callId: string;
      name: string;
      decision: ConfirmDecision;
      by: string | null;
      waitedMs: number;
    }
  | { type: "error"; class: string; message: string }
  | { type: "done"; summary: ChatTurnSummary };

/** How one model call of its own ended (a /v1 call, a playground run): one round, no tools. */
/** The audit event saying what a provider's content filter filtered in a call, when it filtered anything. */
export function contentFilterEvent(
  stamp: Stamp | undefined,
): Extract<AgentEvent, { type: "guardrail" }> | undefined {
  if (!stamp?.contentFilter?.length) return undefined;
  return {
    type: "guardrail",
    code: "provider_content_filter",
    message: `${stamp.servedProvider ?? "The provider"}'s content filter filtered ${stamp.contentFilter.join(", ")}.`,
  };
}

export function callSummary(
  turnId: string,
  model: string,
  stamp: Stamp | undefined,
  status: TurnStatus,
  latencyMs: number,
  error?: TurnError,
): ApiTurnSummary {
  return {
    turnId,
    conversationId: null,
    status,
    requestedModel: model,
    servedProvider: stamp?.servedProvider ?? null,
    servedAdapter: stamp?.servedAdapter ?? null,
    servedModel: stamp?.servedModel ?? null,
    fallbackIndex: stamp?.fallbackIndex ?? null,
    attempts: stamp?.attempts ?? [],
    ...(stamp?.strategy ? { routing: stamp.strategy } : {}),
    ...(stamp?.units ? { units: stamp.units } : {}),
    ...(stamp?.guardrail ? { guardrail: stamp.guardrail } : {}),
    usage: stamp?.usage ?? ZERO_USAGE,
    cost: stamp ? stamp.cost : "0",
    costStatus: stamp?.costStatus ?? "priced",
    rounds: 1,
    toolTrace: [],
    timeToFirstTokenMs: stamp?.timeToFirstTokenMs ?? null,
    latencyMs,
    cacheHits: stamp?.cacheHit ? 1 : 0,
    error,
  };
}

/**
 * One round trip to the model within a turn, as the audit trail keeps it (the `model_call` event): offsets are
 * milliseconds from the turn's start, `firstTokenMs` from the call's own start.
 */
export type ModelCallRecord = {
  round: number;
  /** The loop's last, tool-less call after the round limit. */
  lastCall: boolean;
  outcome: "ok" | "error" | "stopped";
  servedProvider: string | null;
  servedAdapter: string | null;
  servedModel: string | null;
  fallbackIndex: number | null;
  attempts: Stamp["attempts"];
  startMs: number;
  durationMs: number;
  firstTokenMs: number | null;
  usage: Usage | null;
  cost: string | null;
  cacheHit: boolean;
  toolCalls: number;
  /** Text the model said in a round that also called tools (a round's final text is the `answer` event). */
  text?: string;
  error?: TurnError;
};

/**
 * Events a turn records but never streams to its caller: each model call of the loop, and the answer as it was
 * shown. Only the agent loop emits them (an API call's single model call is its ledger row).
 */
export type TurnRecordEvent =
  | { type: "model_call"; call: ModelCallRecord }
  | { type: "answer"; text: string; status: TurnStatus };

/** Everything a turn's observer sees. */
export type TurnEvent = AgentEvent | TurnRecordEvent;

export const isRecordOnly = (event: TurnEvent): event is TurnRecordEvent =>
  event.type === "model_call" || event.type === "answer";
