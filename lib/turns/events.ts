import type { Stamp, ToolCall, Usage } from "@/lib/gateway/types";
import type { GuardrailCode } from "@/lib/pipeline/types";

export type TurnStatus = "success" | "failed" | "stopped" | "limit";

export type ToolTraceEntry = {
  callId: string;
  name: string;
  durationMs: number;
  ok: boolean;
  error?: string;
};

export type TurnSummary = {
  turnId: string;
  conversationId: string;
  status: TurnStatus;
  requestedModel: string;
  servedProvider: string | null;
  servedAdapter: string | null;
  servedModel: string | null;
  fallbackIndex: number | null;
  attempts: Stamp["attempts"];
  /** Summed over every round trip of the loop, sub-agents included. */
  usage: Usage;
  cost: string | null;
  rounds: number;
  toolTrace: ToolTraceEntry[];
  timeToFirstTokenMs: number | null;
  latencyMs: number;
  /** Model calls of the turn answered from the response cache. */
  cacheHits?: number;
  error?: { class: string; message: string };
};

/** What a turn streams to its caller, in order; it always ends with exactly one `done`. */
export type AgentEvent =
  | { type: "turn"; turnId: string; conversationId: string }
  | { type: "text"; delta: string }
  | { type: "tool_call"; call: ToolCall; round: number }
  | { type: "tool_result"; callId: string; name: string; ok: boolean; result: string; durationMs: number }
  | {
      type: "notice";
      code: "fallback" | "loop_limit" | "tools_unavailable" | "repeated_call";
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
  | { type: "error"; class: string; message: string }
  | { type: "done"; summary: TurnSummary };
