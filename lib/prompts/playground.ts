import "server-only";
import { v7 as uuidv7 } from "uuid";
import { AppError } from "@/lib/core/errors";
import type { Gateway } from "@/lib/gateway/gateway";
import type { ChatMessage, Stamp } from "@/lib/gateway/types";
import type { Pipeline } from "@/lib/pipeline/pipeline";
import { callSummary, type TurnError } from "@/lib/turns/events";
import type { TurnObserver } from "@/lib/turns/observer";
import type { PromptVersionView } from "./store";
import { templateOf } from "./store";
import { compile, MissingVariablesError } from "./template";

export type PlaygroundRun = {
  turnId: string;
  status: "success" | "failed" | "stopped";
  answer: string;
  servedModel: string | null;
  usage: { inputTokens: number; outputTokens: number };
  cost: string | null;
  costStatus: string;
  latencyMs: number;
  error?: TurnError;
};

/** A compiled prompt as chat messages: a chat prompt's own, a text prompt as one user message. */
export function messagesOf(version: PromptVersionView, variables: Record<string, string>): ChatMessage[] {
  let compiled: ReturnType<typeof compile>;
  try {
    compiled = compile(templateOf(version), variables);
  } catch (error) {
    if (error instanceof MissingVariablesError)
      throw new AppError("validation_failed", error.message, {
        fields: Object.fromEntries(error.missing.map((v) => [`variables.${v}`, ["required by the prompt"]])),
      });
    throw error;
  }
  return compiled.type === "chat"
    ? compiled.messages.map((m) => ({ role: m.role, content: m.content }))
    : [{ role: "user", content: compiled.text }];
}

/**
 * Runs one version of a prompt with sample variables against an alias: a metered call like any other (source
 * `playground`, budgets and rate limits apply), with its ledger row (carrying the prompt and version) and audit.
 */
export async function runPlayground(
  deps: { gateway: Gateway; pipeline: Pipeline; recorder: TurnObserver },
  who: { tenantId: string; userId: string },
  version: PromptVersionView,
  input: { variables: Record<string, string>; model?: string },
  signal: AbortSignal,
): Promise<PlaygroundRun> {
  const messages = messagesOf(version, input.variables);
  const model = input.model ?? version.config.model ?? deps.gateway.defaultModel;
  if (!deps.gateway.hasModel(model))
    throw new AppError("validation_failed", `unknown model "${model}"`, {
      fields: { model: [`choose one of: ${deps.gateway.modelAliases().join(", ")}`] },
    });
  const turnId = uuidv7();
  const started = performance.now();
  await deps.recorder.start({
    turnId,
    tenantId: who.tenantId,
    userId: who.userId,
    conversationId: null,
    source: "playground",
    requestedModel: model,
    message: messages.map((m) => `${m.role}: ${m.content}`).join("\n\n"),
    toolsOffered: [],
    startedAt: new Date(),
    prompt: { name: version.name, version: version.version },
  });
  let answer = "";
  let stamp: Stamp | undefined;
  let error: TurnError | undefined;
  try {
    const events = deps.pipeline.run(
      { tenantId: who.tenantId, userId: who.userId, apiKeyId: null, source: "playground" },
      {
        model,
        messages,
        temperature: version.config.temperature,
        maxTokens: version.config.maxTokens,
        signal,
      },
      { stream: true },
    );
    for await (const event of events) {
      if (event.type === "text") answer += event.delta;
      else if (event.type === "done") stamp = event.response.stamp;
      else if (event.type === "guardrail")
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
  const status = error ? (signal.aborted || error.class === "aborted" ? "stopped" : "failed") : "success";
  const latencyMs = Math.round(performance.now() - started);
  const summary = callSummary(turnId, model, stamp, status, latencyMs, error);
  await deps.recorder.end(summary);
  return {
    turnId,
    status,
    answer,
    servedModel: summary.servedModel,
    usage: { inputTokens: summary.usage.inputTokens, outputTokens: summary.usage.outputTokens },
    cost: summary.cost,
    costStatus: summary.costStatus ?? "priced",
    latencyMs,
    ...(error ? { error } : {}),
  };
}
