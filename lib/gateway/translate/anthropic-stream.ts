/** An Anthropic Messages event stream -> OpenAI chat.completion.chunk events, each delta passed on as it arrives. */
import { chatCompletionId, finishReason, openAIUsage } from "./responses";
import { isObject } from "./rules";
import type { Json, SseEvent, StreamTranslator } from "./types";

export type AnthropicStreamOptions = {
  model: string;
  /** The caller set `stream_options.include_usage`: a usage-only chunk (`choices: []`) precedes [DONE]. */
  includeUsage: boolean;
  /** `Translated.structuredTool`: that tool's input JSON streams as the message content. */
  structuredTool?: string;
};

export function anthropicStreamToOpenAIChat(opts: AnthropicStreamOptions): StreamTranslator {
  let id = chatCompletionId(undefined);
  const created = Math.floor(Date.now() / 1000);
  let usage: Json = {};
  let started = false;
  let usageSent = false;
  let structuredUsed = false;
  const toolCallIndex = new Map<number, number>(); // Anthropic block index -> OpenAI tool call index
  const structuredBlocks = new Set<number>();

  const chunk = (delta: Json, finish: string | null = null): SseEvent => ({
    data: JSON.stringify({
      id,
      object: "chat.completion.chunk",
      created,
      model: opts.model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    }),
  });
  const usageChunk = (): SseEvent[] => {
    if (!opts.includeUsage || usageSent || !started) return [];
    usageSent = true;
    const data = {
      id,
      object: "chat.completion.chunk",
      created,
      model: opts.model,
      choices: [],
      usage: openAIUsage(usage),
    };
    return [{ data: JSON.stringify(data) }];
  };
  const start = (): SseEvent[] => {
    if (started) return [];
    started = true;
    return [chunk({ role: "assistant", content: "" })];
  };

  function translate(event: Json): SseEvent[] {
    const index = typeof event.index === "number" ? event.index : -1;
    switch (event.type) {
      case "message_start": {
        const message = isObject(event.message) ? event.message : {};
        if (typeof message.id === "string") id = chatCompletionId(message.id);
        if (isObject(message.usage)) usage = { ...message.usage };
        return start();
      }
      case "content_block_start": {
        const block = isObject(event.content_block) ? event.content_block : {};
        if (block.type === "text" && typeof block.text === "string" && block.text)
          return [chunk({ content: block.text })];
        if (block.type !== "tool_use") return []; // thinking only comes when asked for, which is refused
        if (opts.structuredTool !== undefined && block.name === opts.structuredTool) {
          structuredBlocks.add(index);
          structuredUsed = true;
          return [];
        }
        const call = toolCallIndex.size;
        toolCallIndex.set(index, call);
        const first = {
          index: call,
          id: block.id,
          type: "function",
          function: { name: block.name, arguments: "" },
        };
        return [chunk({ tool_calls: [first] })];
      }
      case "content_block_delta": {
        const delta = isObject(event.delta) ? event.delta : {};
        if (delta.type === "text_delta" && typeof delta.text === "string")
          return [chunk({ content: delta.text })];
        if (
          delta.type !== "input_json_delta" ||
          typeof delta.partial_json !== "string" ||
          !delta.partial_json
        )
          return [];
        if (structuredBlocks.has(index)) return [chunk({ content: delta.partial_json })];
        const call = toolCallIndex.get(index);
        if (call === undefined) return [];
        return [chunk({ tool_calls: [{ index: call, function: { arguments: delta.partial_json } }] })];
      }
      case "message_delta": {
        if (isObject(event.usage)) {
          for (const [k, v] of Object.entries(event.usage)) if (v !== null && v !== undefined) usage[k] = v;
        }
        const delta = isObject(event.delta) ? event.delta : {};
        return [chunk({}, finishReason(delta.stop_reason, structuredUsed) ?? "stop")];
      }
      case "message_stop":
        return usageChunk();
      case "error": {
        const error = isObject(event.error) ? event.error : {};
        const body = {
          error: {
            message: error.message ?? "upstream error",
            type: error.type ?? "api_error",
            param: null,
            code: null,
          },
        };
        return [{ data: JSON.stringify(body) }];
      }
      default:
        return []; // ping, content_block_stop
    }
  }

  return {
    push(event) {
      let data: unknown;
      try {
        data = JSON.parse(event.data);
      } catch {
        return [];
      }
      if (!isObject(data)) return [];
      const out =
        data.type === "error" || data.type === "message_start" || data.type === "ping" ? [] : start();
      return [...out, ...translate(data)];
    },
    end: () => [...usageChunk(), { data: "[DONE]" }],
  };
}
