import type { MessageInputs, TurnFeedback } from "@/features/drawer/contracts";
import type { ModelInfo } from "@/lib/gateway/types";
import type { AgentCard } from "@/lib/turns/cards";
import type { AddedMessageSummary, AgentEvent, ConfirmDecision, TurnStatus } from "@/lib/turns/events";

// The JSON the drawer's API routes answer with, as the browser receives it (dates are strings).

export type { AddedMessageSummary, AgentEvent, ConfirmDecision, ModelInfo, TurnFeedback };

export type ConversationSummary = {
  id: string;
  title: string | null;
  model: string | null;
  createdAt: string;
  updatedAt: string;
};

export type StoredToolCall = { id: string; name: string; args: Record<string, unknown> };

export type HistoryMessage = {
  id: string;
  turnId: string | null;
  role: "system" | "user" | "assistant" | "tool";
  content: string;
  toolCalls?: StoredToolCall[];
  toolCallId?: string;
  name?: string;
  kind?: "display" | "notification" | "tool_message";
  data?: Record<string, unknown>;
  createdAt: string;
};

/** A notice queued for the conversation's next turn (GET /api/agent/conversations/:id/pending). */
export type PendingNotice = { id: number; type: string; body: string; createdAt: string };

/** The fields of a ledger row (GET /api/agent/turns/:id) the answer footer needs. */
export type LedgerTurn = {
  id: string;
  status: TurnStatus | "running" | "interrupted";
  servedModel: string | null;
  requestedModel: string;
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
  cost: string | null;
  latencyMs: number | null;
  toolTrace: { callId?: string; name: string; durationMs: number; ok: boolean }[];
};

export type NoticeCode = Extract<AgentEvent, { type: "notice" }>["code"] | "guardrail" | "budget_warning";

/**
 * A call that needs the user's Approve / Deny: waiting until `deadline` (this browser's clock, from the time limit
 * the server gave), or what became of it (`cancelled`: the turn ended, by Stop, before anyone decided).
 */
export type ConfirmationState =
  | {
      state: "pending";
      deadline: number;
      timeoutMs: number;
      /** Where the call would send the turn's outside data (why a tool that does not always ask, asks). */
      sendsTo?: string;
    }
  | { state: "decided"; decision: ConfirmDecision | "cancelled" };

export type ToolCardState = {
  callId: string;
  name: string;
  args: Record<string, unknown>;
  status: "running" | "ok" | "error" | "cancelled";
  result?: string;
  durationMs?: number;
  /** Cards the tool returned beside its result (live from `tool_result`, after a reload from `data.cards`). */
  cards?: AgentCard[];
  /** The call needed the user's confirmation (live from `confirm`, after a reload from `data.confirmation`). */
  confirmation?: ConfirmationState;
  /** The message the call added for the model (an image it loaded): live from `tool_result`, after a reload from the stored message. */
  message?: AddedMessageSummary;
};

/** One piece of a turn, in the order it happened. */
export type TurnPart =
  | { type: "user"; key: string; text: string; inputs?: MessageInputs }
  | { type: "text"; key: string; text: string }
  | { type: "display"; key: string; content: string }
  | { type: "tool"; key: string; tool: ToolCardState }
  | { type: "notice"; key: string; code: NoticeCode; message: string }
  | { type: "note"; key: string; text: string };

export type FooterInfo = {
  servedModel: string | null;
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
  cost: string | null;
  latencyMs: number | null;
  status: LedgerTurn["status"];
};

/**
 * failed: the server's message (its own failure, worth a retry); refused: the server said no to this request
 * (a 4xx such as a too-long message), retrying would get the same answer; rateLimited: retry after `retryAt`
 * (epoch ms); network: no answer at all; cut: the stream ended without `done`.
 */
export type TurnError =
  | { kind: "failed"; message: string }
  | { kind: "refused"; message: string }
  | { kind: "rateLimited"; message: string; retryAt: number }
  /** 503: the service (its database, its counter store) is briefly away; Retry after its wait. */
  | { kind: "unavailable"; retryAt: number }
  | { kind: "signedOut" }
  | { kind: "network" }
  | { kind: "cut" };

/** A user message and everything the agent did about it. */
export type ChatTurn = {
  /** Stable React key: the turn id is not known until the stream says so. */
  key: string;
  turnId: string | null;
  /** The user's words, kept so Retry can send them again. */
  message: string | null;
  /** The context chips and files sent with them, sent again by Retry and an edit. */
  inputs?: MessageInputs;
  /** This turn edits or regenerates the one before it (Retry of a refused start does the same again). */
  mode?: ReplaceMode;
  parts: TurnPart[];
  phase: "streaming" | "done";
  footer?: FooterInfo;
  /** Known before the footer is: the stream was cut by Stop on this side. */
  localStatus?: "stopped";
  error?: TurnError;
  /** The user's own vote on the answer: null when they have none, undefined until the server has said. */
  feedback?: TurnFeedback | null;
};

/** How a turn replaces the conversation's last one: edit-and-resend its message, or regenerate its answer. */
export type ReplaceMode = "edit" | "regenerate";

/** Whether Retry can help: not for a refusal (same request, same answer) or a sign-out. */
export const isRetryable = (error: TurnError): boolean =>
  error.kind !== "refused" && error.kind !== "signedOut";
