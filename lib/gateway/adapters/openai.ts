import "server-only";
import OpenAI from "openai";
import type {
  ChatCompletionChunk,
  ChatCompletionContentPart,
  ChatCompletionCreateParamsBase,
  ChatCompletionMessageParam,
  ChatCompletionTool,
  ChatCompletionToolChoiceOption,
} from "openai/resources/chat/completions";
import type { CompletionUsage } from "openai/resources/completions";
import { streamCut } from "../errors";
import { azureFilterVerdicts } from "../forward/formats";
import type { Json } from "../translate/types";
import type { FinishReason, ProviderType, ToolCall, Usage } from "../types";
import {
  type AdapterEvent,
  type AdapterRequest,
  type AdapterResult,
  type ModelAdapter,
  observedFetch,
  parseToolArgs,
} from "./adapter";

export type OpenAIAdapterOptions = {
  apiKey?: string;
  baseUrl?: string;
  compatible?: boolean;
  /** A client made for another provider that speaks chat completions (Azure OpenAI's), and that provider's type. */
  client?: { openai: OpenAI; type: ProviderType };
};

/** What every client the gateway makes shares: the router retries and times; our transport carries the calls. */
export const SDK_CLIENT_OPTIONS = {
  maxRetries: 0, // the router retries, with its own policy
  timeout: 24 * 3600 * 1000, // the router's timers apply
  fetch: observedFetch,
};

/**
 * OpenAI chat completions through the official SDK; `compatible` for Ollama, vLLM, LM Studio, DeepSeek…, and a
 * given `client` for Azure OpenAI.
 */
export class OpenAIAdapter implements ModelAdapter {
  readonly type: ProviderType;
  private readonly client: OpenAI;
  private readonly compatible: boolean;

  constructor(options: OpenAIAdapterOptions) {
    this.compatible = options.compatible ?? false;
    this.type = options.client?.type ?? (this.compatible ? "openai-compatible" : "openai");
    this.client =
      options.client?.openai ??
      new OpenAI({
        // Local servers usually take any key; the SDK insists on one.
        apiKey: options.apiKey ?? "not-needed",
        baseURL: options.baseUrl,
        ...SDK_CLIENT_OPTIONS,
      });
  }

  async chat(req: AdapterRequest, signal: AbortSignal): Promise<AdapterResult> {
    const completion = await this.client.chat.completions.create(
      { ...this.params(req), stream: false },
      { signal },
    );
    const choice = completion.choices[0];
    const toolCalls: ToolCall[] = (choice?.message.tool_calls ?? []).flatMap((c) =>
      c.type === "function"
        ? [{ id: c.id, name: c.function.name, args: parseToolArgs(c.function.arguments) }]
        : [],
    );
    // Azure OpenAI's filter verdicts ride on the answer (fields the OpenAI types do not have), and Google's
    // safety blocks in the same shape.
    const filtered = FILTERED_TYPES.has(this.type) ? filterVerdicts(completion, []) : [];
    return {
      content: choice?.message.content ?? "",
      toolCalls,
      finishReason: finishReason(choice?.finish_reason),
      usage: usageOf(completion.usage),
      servedModel: completion.model || req.model,
      ...(filtered.length ? { contentFilter: filtered } : {}),
    };
  }

  async *stream(req: AdapterRequest, signal: AbortSignal): AsyncIterable<AdapterEvent> {
    const stream = await this.client.chat.completions.create(
      { ...this.params(req), stream: true, stream_options: { include_usage: true } },
      { signal },
    );
    const pending = new Map<number, { id: string; name: string; args: string }>();
    let finish: FinishReason = "stop";
    let usage: Usage | undefined;
    let servedModel = req.model;
    let ended = false;
    const filtered: string[] = [];
    for await (const chunk of stream as AsyncIterable<ChatCompletionChunk>) {
      if (FILTERED_TYPES.has(this.type)) filterVerdicts(chunk, filtered);
      if (chunk.model) servedModel = chunk.model;
      if (chunk.usage) {
        usage = usageOf(chunk.usage);
        yield { type: "usage", usage };
      }
      const choice = chunk.choices[0];
      if (!choice) continue;
      const delta = choice.delta;
      if (delta?.content) yield { type: "text", delta: delta.content };
      for (const part of delta?.tool_calls ?? []) {
        const call = pending.get(part.index) ?? { id: "", name: "", args: "" };
        if (part.id) call.id = part.id;
        if (part.function?.name) call.name += part.function.name;
        if (part.function?.arguments) call.args += part.function.arguments;
        pending.set(part.index, call);
      }
      if (choice.finish_reason) {
        finish = finishReason(choice.finish_reason);
        ended = true;
      }
    }
    // The SDK ends quietly when the connection drops before [DONE]; a stream with no finish_reason was cut.
    if (!ended) throw streamCut();
    for (const [, call] of [...pending.entries()].sort(([a], [b]) => a - b)) {
      yield { type: "tool_call", call: { id: call.id, name: call.name, args: parseToolArgs(call.args) } };
    }
    yield {
      type: "end",
      finishReason: finish,
      usage: usage ?? zeroUsage(),
      servedModel,
      ...(filtered.length ? { contentFilter: filtered } : {}),
    };
  }

  private params(req: AdapterRequest): ChatCompletionCreateParamsBase {
    const params: ChatCompletionCreateParamsBase = {
      model: req.model,
      messages: req.messages.map(toOpenAIMessage),
    };
    if (req.tools?.length) {
      params.tools = req.tools.map(
        (t): ChatCompletionTool => ({
          type: "function",
          function: { name: t.name, description: t.description, parameters: t.parameters },
        }),
      );
      if (req.toolChoice) params.tool_choice = toolChoice(req.toolChoice);
    }
    if (req.temperature !== undefined) params.temperature = req.temperature;
    if (req.maxTokens !== undefined) {
      // OpenAI's newer models take max_completion_tokens; compatible servers mostly know only max_tokens.
      if (this.compatible) params.max_tokens = req.maxTokens;
      else params.max_completion_tokens = req.maxTokens;
    }
    return params;
  }
}

function toOpenAIMessage(m: AdapterRequest["messages"][number]): ChatCompletionMessageParam {
  switch (m.role) {
    case "system":
      return { role: m.role, content: m.content };
    case "user":
      // Images as data: URLs in image_url parts, after the text (vision models; the route checked the alias).
      return m.images?.length
        ? {
            role: "user",
            content: [
              { type: "text", text: m.content },
              ...m.images.map(
                (image): ChatCompletionContentPart => ({
                  type: "image_url",
                  image_url: { url: `data:${image.mediaType};base64,${image.data}` },
                }),
              ),
            ],
          }
        : { role: "user", content: m.content };
    case "assistant":
      return m.toolCalls?.length
        ? {
            role: "assistant",
            content: m.content || null,
            tool_calls: m.toolCalls.map((c) => ({
              id: c.id,
              type: "function" as const,
              function: { name: c.name, arguments: JSON.stringify(c.args) },
            })),
          }
        : { role: "assistant", content: m.content };
    case "tool":
      return { role: "tool", tool_call_id: m.toolCallId, content: m.content };
  }
}

/** The types whose answers carry Azure-shaped filter verdicts: Azure's own, and Google's translated (native/gemini). */
const FILTERED_TYPES = new Set<ProviderType>(["azure-openai", "gemini", "vertex"]);
const filterVerdicts = (answer: object, into: string[]) => azureFilterVerdicts(answer as Json, into);

function toolChoice(choice: NonNullable<AdapterRequest["toolChoice"]>): ChatCompletionToolChoiceOption {
  return typeof choice === "string" ? choice : { type: "function", function: { name: choice.name } };
}

function finishReason(reason: string | null | undefined): FinishReason {
  switch (reason) {
    case "stop":
    case "length":
    case "tool_calls":
    case "content_filter":
      return reason;
    case "function_call":
      return "tool_calls";
    default:
      return reason ? "other" : "stop";
  }
}

/** OpenAI's prompt_tokens include the cached ones; ours do not. */
export function usageOf(u: CompletionUsage | undefined | null): Usage {
  if (!u) return zeroUsage();
  const cached = u.prompt_tokens_details?.cached_tokens ?? 0;
  return {
    inputTokens: Math.max(0, (u.prompt_tokens ?? 0) - cached),
    cachedInputTokens: cached,
    cacheWriteTokens: 0,
    outputTokens: u.completion_tokens ?? 0,
    reasoningTokens: u.completion_tokens_details?.reasoning_tokens ?? 0,
  };
}

const zeroUsage = (): Usage => ({
  inputTokens: 0,
  cachedInputTokens: 0,
  cacheWriteTokens: 0,
  outputTokens: 0,
  reasoningTokens: 0,
});
