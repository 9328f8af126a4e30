import "server-only";
import { v7 as uuidv7 } from "uuid";
import type { ChatMessage, Stamp, ToolCall, ToolSchema } from "@/lib/gateway/types";
import type { Pipeline } from "@/lib/pipeline/pipeline";
import { callSummary, type TurnError } from "@/lib/turns/events";
import type { TurnObserver, TurnPrompt } from "@/lib/turns/observer";

export type EvalCallDeps = { pipeline: Pipeline; recorder: TurnObserver };
/** Whose call it is: the run's tenant, its creator, and the API key it was started with (if any). */
export type EvalCaller = { tenantId: string; userId: string; apiKeyId: string | null };

export type EvalCallResult = {
  turnId: string;
  status: "success" | "failed" | "stopped";
  answer: string;
  toolCalls: { name: string; args: Record<string, unknown> }[];
  usage: { inputTokens: number; outputTokens: number };
  /** Exact USD; null when the served model has no price. */
  cost: string | null;
  costStatus: "priced" | "unpriced" | "assumed";
  latencyMs: number;
  error?: TurnError;
};

/** The pipeline's refusals that stop a whole run: the tenant's hard budget is spent (or cannot be priced). */
export const BUDGET_CLASSES = new Set(["budget_exceeded", "budget_unpriced_model"]);

/**
 * One model call of an evaluation run (a target's answer, or a judge's verdict): a metered call like any other
 * (source `eval`: budgets and rate limits apply), with its ledger row and audit trail.
 */
export async function evalCall(
  deps: EvalCallDeps,
  who: EvalCaller,
  request: {
    model: string;
    messages: ChatMessage[];
    temperature?: number;
    maxTokens?: number;
    tools?: ToolSchema[];
  },
  options: { prompt?: TurnPrompt; signal?: AbortSignal } = {},
): Promise<EvalCallResult> {
  const turnId = uuidv7();
  const started = performance.now();
  await deps.recorder.start({
    turnId,
    tenantId: who.tenantId,
    userId: who.userId,
    conversationId: null,
    source: "eval",
    ...(who.apiKeyId ? { apiKeyId: who.apiKeyId } : {}),
    requestedModel: request.model,
    message: request.messages.map((m) => `${m.role}: ${m.content}`).join("\n\n"),
    toolsOffered: request.tools?.map((t) => t.name) ?? [],
    startedAt: new Date(),
    ...(options.prompt ? { prompt: options.prompt } : {}),
  });
  let answer = "";
  const toolCalls: ToolCall[] = [];
  let stamp: Stamp | undefined;
  let error: TurnError | undefined;
  try {
    const events = deps.pipeline.run(
      { tenantId: who.tenantId, userId: who.userId, apiKeyId: who.apiKeyId, source: "eval" },
      { ...request, signal: options.signal },
      { stream: false },
    );
    for await (const event of events) {
      if (event.type === "text") answer += event.delta;
      else if (event.type === "tool_call") toolCalls.push(event.call);
      else if (event.type === "done") {
        stamp = event.response.stamp;
        if (!answer) answer = event.response.message.content;
        if (!toolCalls.length) toolCalls.push(...event.response.message.toolCalls);
      } else if (event.type === "guardrail")
        deps.recorder.event(turnId, { type: "guardrail", code: event.code, message: event.message });
      else if (event.type === "error") {
        stamp = event.stamp;
        error = { class: event.error.class, message: event.error.message };
        deps.recorder.event(turnId, { type: "error", class: error.class, message: error.message });
      }
    }
  } catch (thrown) {
    error = { class: "internal", message: thrown instanceof Error ? thrown.message : String(thrown) };
  }
  const status = error
    ? options.signal?.aborted || error.class === "aborted"
      ? "stopped"
      : "failed"
    : "success";
  const latencyMs = Math.round(performance.now() - started);
  if (!error) deps.recorder.event(turnId, { type: "answer", text: answer, status });
  const summary = callSummary(turnId, request.model, stamp, status, latencyMs, error);
  await deps.recorder.end(summary);
  return {
    turnId,
    status,
    answer,
    toolCalls: toolCalls.map((c) => ({ name: c.name, args: c.args })),
    usage: { inputTokens: summary.usage.inputTokens, outputTokens: summary.usage.outputTokens },
    cost: summary.cost,
    costStatus: summary.costStatus ?? "priced",
    latencyMs,
    ...(error ? { error } : {}),
  };
}
