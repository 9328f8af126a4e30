import "server-only";
import { AppError } from "@/lib/core/errors/app-error";
import type { Gateway } from "@/lib/gateway/gateway";
import type { ChatMessage } from "@/lib/gateway/types";
import { meteredCall } from "@/lib/pipeline/metered-call";
import type { Pipeline } from "@/lib/pipeline/pipeline";
import type { TurnError } from "@/lib/turns/events";
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
  const call = await meteredCall(
    deps,
    { tenantId: who.tenantId, userId: who.userId, apiKeyId: null, source: "playground" },
    { model, messages, temperature: version.config.temperature, maxTokens: version.config.maxTokens },
    { prompt: { name: version.name, version: version.version }, signal },
  );
  return {
    turnId: call.turnId,
    status: call.status,
    answer: call.answer,
    servedModel: call.servedModel,
    usage: call.usage,
    cost: call.cost,
    costStatus: call.costStatus,
    latencyMs: call.latencyMs,
    ...(call.error ? { error: call.error } : {}),
  };
}
