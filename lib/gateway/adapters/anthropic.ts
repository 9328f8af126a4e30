import "server-only";
import Anthropic from "@anthropic-ai/sdk";
import type {
  ContentBlockParam,
  MessageCreateParamsBase,
  MessageParam,
  RawMessageStreamEvent,
  StopReason,
  Tool,
  ToolChoice,
  ToolResultBlockParam,
} from "@anthropic-ai/sdk/resources/messages/messages";
import { streamCut } from "../errors";
import type { ChatMessage, FinishReason, ToolCall, Usage } from "../types";
import {
  type AdapterEvent,
  type AdapterRequest,
  type AdapterResult,
  type ModelAdapter,
  observedFetch,
  parseToolArgs,
} from "./adapter";

// Anthropic requires max_tokens; this is the ceiling when the caller sets none.
const DEFAULT_MAX_TOKENS = 4096;

type AnthropicUsage = {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
};

/** Anthropic Messages through the official SDK. */
export class AnthropicAdapter implements ModelAdapter {
  readonly type = "anthropic" as const;
  private readonly client: Anthropic;

  constructor(options: { apiKey?: string; baseUrl?: string }) {
    this.client = new Anthropic({
      apiKey: options.apiKey ?? "not-set",
      baseURL: options.baseUrl,
      maxRetries: 0,
      timeout: 24 * 3600 * 1000,
      fetch: observedFetch,
    });
  }

  async chat(req: AdapterRequest, signal: AbortSignal): Promise<AdapterResult> {
    const message = await this.client.messages.create({ ...params(req), stream: false }, { signal });
    let content = "";
    const toolCalls: ToolCall[] = [];
    for (const block of message.content) {
      if (block.type === "text") content += block.text;
      else if (block.type === "tool_use") {
        toolCalls.push({
          id: block.id,
          name: block.name,
          args: (block.input ?? {}) as Record<string, unknown>,
        });
      }
    }
    return {
      content,
      toolCalls,
      finishReason: finishReason(message.stop_reason),
      usage: usageOf(message.usage),
      servedModel: message.model || req.model,
    };
  }

  async *stream(req: AdapterRequest, signal: AbortSignal): AsyncIterable<AdapterEvent> {
    const stream = await this.client.messages.create({ ...params(req), stream: true }, { signal });
    const blocks = new Map<number, { id: string; name: string; json: string }>();
    let usage: AnthropicUsage = {};
    let servedModel = req.model;
    let stop: StopReason | null = null;
    let complete = false;
    for await (const event of stream as AsyncIterable<RawMessageStreamEvent>) {
      switch (event.type) {
        case "message_start":
          servedModel = event.message.model || servedModel;
          usage = { ...event.message.usage };
          yield { type: "usage", usage: usageOf(usage) };
          break;
        case "content_block_start":
          if (event.content_block.type === "tool_use") {
            blocks.set(event.index, { id: event.content_block.id, name: event.content_block.name, json: "" });
          }
          break;
        case "content_block_delta":
          if (event.delta.type === "text_delta") yield { type: "text", delta: event.delta.text };
          else if (event.delta.type === "input_json_delta") {
            const block = blocks.get(event.index);
            if (block) block.json += event.delta.partial_json;
          }
          break;
        case "content_block_stop": {
          const block = blocks.get(event.index);
          if (block)
            yield {
              type: "tool_call",
              call: { id: block.id, name: block.name, args: parseToolArgs(block.json) },
            };
          break;
        }
        case "message_delta":
          stop = event.delta.stop_reason ?? stop;
          // message_delta carries cumulative counts; keep message_start's where it has none.
          for (const [key, value] of Object.entries(event.usage)) {
            if (typeof value === "number") (usage as Record<string, number>)[key] = value;
          }
          yield { type: "usage", usage: usageOf(usage) };
          break;
        case "message_stop":
          complete = true;
          break;
      }
    }
    // The SDK ends quietly when the connection drops; a stream without message_stop was cut.
    if (!complete) throw streamCut();
    yield { type: "end", finishReason: finishReason(stop), usage: usageOf(usage), servedModel };
  }
}

function params(req: AdapterRequest): MessageCreateParamsBase {
  const system = req.messages
    .filter((m) => m.role === "system")
    .map((m) => m.content)
    .join("\n\n");
  const p: MessageCreateParamsBase = {
    model: req.model,
    max_tokens: req.maxTokens ?? DEFAULT_MAX_TOKENS,
    messages: toAnthropicMessages(req.messages),
  };
  if (system) p.system = system;
  // The current Messages API (this SDK) has no temperature parameter; it is dropped for Anthropic.
  if (req.tools?.length) {
    p.tools = req.tools.map(
      (t): Tool => ({
        name: t.name,
        description: t.description,
        input_schema: t.parameters as Tool["input_schema"],
      }),
    );
    if (req.toolChoice) p.tool_choice = toolChoice(req.toolChoice);
  }
  return p;
}

/**
 * Anthropic wants alternating user/assistant turns, with tool results as tool_result blocks in a user turn:
 * consecutive tool results and user text are merged into one user message.
 */
export function toAnthropicMessages(messages: ChatMessage[]): MessageParam[] {
  const out: MessageParam[] = [];
  const push = (role: "user" | "assistant", blocks: ContentBlockParam[]) => {
    const last = out[out.length - 1];
    if (last && last.role === role && Array.isArray(last.content)) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const m of messages) {
    if (m.role === "system") continue;
    if (m.role === "user") {
      // Images first, then the text: Anthropic's advice for questions about images.
      const images = (m.images ?? []).map(
        (image): ContentBlockParam => ({
          type: "image",
          source: { type: "base64", media_type: image.mediaType, data: image.data },
        }),
      );
      push("user", [...images, { type: "text", text: m.content }]);
    } else if (m.role === "tool") {
      const block: ToolResultBlockParam = {
        type: "tool_result",
        tool_use_id: m.toolCallId,
        content: m.content,
      };
      push("user", [block]);
    } else {
      const blocks: ContentBlockParam[] = [];
      if (m.content) blocks.push({ type: "text", text: m.content });
      for (const c of m.toolCalls ?? [])
        blocks.push({ type: "tool_use", id: c.id, name: c.name, input: c.args });
      if (blocks.length) push("assistant", blocks);
    }
  }
  return out;
}

function toolChoice(choice: NonNullable<AdapterRequest["toolChoice"]>): ToolChoice {
  if (typeof choice === "object") return { type: "tool", name: choice.name };
  return choice === "required" ? { type: "any" } : { type: choice };
}

function finishReason(reason: StopReason | null | undefined): FinishReason {
  switch (reason) {
    case "end_turn":
    case "stop_sequence":
    case null:
    case undefined:
      return "stop";
    case "tool_use":
      return "tool_calls";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "refusal":
      return "content_filter";
    default:
      return "other";
  }
}

/** Anthropic's input_tokens already exclude cache reads and writes. */
export function usageOf(u: AnthropicUsage | undefined): Usage {
  return {
    inputTokens: u?.input_tokens ?? 0,
    cachedInputTokens: u?.cache_read_input_tokens ?? 0,
    cacheWriteTokens: u?.cache_creation_input_tokens ?? 0,
    outputTokens: u?.output_tokens ?? 0,
    reasoningTokens: 0,
  };
}
