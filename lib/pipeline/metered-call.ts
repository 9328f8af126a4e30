import "server-only";
import { v7 as uuidv7 } from "uuid";
import type { ChatMessage, Stamp, ToolCall, ToolSchema } from "@/lib/gateway/types";
import { callSummary, contentFilterEvent, type TurnError } from "@/lib/turns/events";
import type { CallTurnSource, TurnObserver, TurnPrompt } from "@/lib/turns/observer";
import type { Pipeline } from "./pipeline";
import type { Call } from "./types";

export type MeteredCallDeps = { pipeline: Pipeline; recorder: TurnObserver };
/** Whose call it is (tenant, user, the API key if any) and where it comes from. */
export type MeteredCaller = {
  tenantId: string;
  userId: string;
  apiKeyId: string | null;
  source: CallTurnSource;
};

export type MeteredCallResult = {
  turnId: string;
  status: "success" | "failed" | "stopped";
  answer: string;
  servedModel: string | null;
  toolCalls: { name: string; args: Record<string, unknown> }[];
  usage: { inputTokens: number; outputTokens: number };
  /** Exact USD; null when the served model has no price. */
  cost: string | null;
  costStatus: "priced" | "unpriced" | "assumed";
  latencyMs: number;
  error?: TurnError;
};

/**
 * One model call of its own (a prompt's playground run, an evaluation target's answer or a judge's verdict): a
 * metered call like any other (budgets and rate limits apply), with its ledger row (with the stored prompt, if
 * any) and audit trail, its answer recorded as shown.
 */
export async function meteredCall(
  deps: MeteredCallDeps,
  who: MeteredCaller,
  request: {
    model: string;
    messages: ChatMessage[];
    temperature?: number;
    maxTokens?: number;
    tools?: ToolSchema[];
  },
  options: {
    prompt?: TurnPrompt;
    signal?: AbortSignal;
    /**
     * A /v1 wire request instead of a chat (a guardrail's moderation call): its answer's body is `answer`, as the
     * provider wrote it; `request` then only stands in for its size.
     */
    wire?: Call["wire"];
  } = {},
): Promise<MeteredCallResult> {
  const turnId = uuidv7();
  const started = performance.now();
  await deps.recorder.start({
    turnId,
    tenantId: who.tenantId,
    userId: who.userId,
    conversationId: null,
    source: who.source,
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
      { tenantId: who.tenantId, userId: who.userId, apiKeyId: who.apiKeyId, source: who.source },
      { ...request, signal: options.signal },
      { stream: false, ...(options.wire ? { wire: options.wire, noCache: true } : {}) },
    );
    for await (const event of events) {
      if (event.type === "text") answer += event.delta;
      else if (event.type === "bytes") answer += event.data;
      else if (event.type === "tool_call") toolCalls.push(event.call);
      else if (event.type === "done") {
        stamp = event.response.stamp;
        if (!answer && !options.wire) answer = event.response.message.content;
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
  const filtered = contentFilterEvent(stamp);
  if (filtered) deps.recorder.event(turnId, filtered);
  const summary = callSummary(turnId, request.model, stamp, status, latencyMs, error);
  await deps.recorder.end(summary);
  return {
    turnId,
    status,
    answer,
    servedModel: summary.servedModel,
    toolCalls: toolCalls.map((c) => ({ name: c.name, args: c.args })),
    usage: { inputTokens: summary.usage.inputTokens, outputTokens: summary.usage.outputTokens },
    cost: summary.cost,
    costStatus: summary.costStatus ?? "priced",
    latencyMs,
    ...(error ? { error } : {}),
  };
}
