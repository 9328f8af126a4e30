/** Whole (non-streamed) responses: an Anthropic message <-> an OpenAI chat.completion. */
import { isObject } from "./rules";
import type { Json, ResponseOptions } from "./types";

const ANTHROPIC_TO_OPENAI_FINISH: Record<string, string> = {
  end_turn: "stop",
  stop_sequence: "stop",
  pause_turn: "stop",
  max_tokens: "length",
  model_context_window_exceeded: "length",
  tool_use: "tool_calls",
  refusal: "content_filter",
};

const OPENAI_TO_ANTHROPIC_STOP: Record<string, string> = {
  stop: "end_turn",
  length: "max_tokens",
  tool_calls: "tool_use",
  function_call: "tool_use",
  content_filter: "refusal",
};

/** Anthropic's stop reason as OpenAI's finish reason; the forced structured tool finishes like an answer. */
export function finishReason(stopReason: unknown, structured: boolean): string | null {
  if (typeof stopReason !== "string") return null;
  if (structured && stopReason === "tool_use") return "stop";
  return ANTHROPIC_TO_OPENAI_FINISH[stopReason] ?? "stop";
}

export function stopReason(finish: unknown): string | null {
  return typeof finish === "string" ? (OPENAI_TO_ANTHROPIC_STOP[finish] ?? "end_turn") : null;
}

const num = (v: unknown) => (typeof v === "number" ? v : 0);

/** Anthropic usage -> OpenAI's, where prompt tokens include the cached ones. */
export function openAIUsage(usage: unknown): Json {
  const u = isObject(usage) ? usage : {};
  const cached = num(u.cache_read_input_tokens);
  const prompt = num(u.input_tokens) + cached + num(u.cache_creation_input_tokens);
  const completion = num(u.output_tokens);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: cached },
  };
}

/** OpenAI usage -> Anthropic's, where input tokens exclude the cached ones. */
export function anthropicUsage(usage: unknown): Json {
  const u = isObject(usage) ? usage : {};
  const details = isObject(u.prompt_tokens_details) ? u.prompt_tokens_details : {};
  const cached = num(details.cached_tokens);
  return {
    input_tokens: Math.max(0, num(u.prompt_tokens) - cached),
    output_tokens: num(u.completion_tokens),
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: cached,
    cache_creation: null,
    inference_geo: null,
    output_tokens_details: null,
    server_tool_use: null,
    service_tier: null,
    speed: null,
  };
}

export const chatCompletionId = (anthropicId: unknown) =>
  `chatcmpl-${typeof anthropicId === "string" ? anthropicId.replace(/^msg_/, "") : randomSuffix()}`;
export const messageId = (openAIId: unknown) =>
  `msg_${typeof openAIId === "string" ? openAIId.replace(/^chatcmpl-/, "") : randomSuffix()}`;
const randomSuffix = () => Math.random().toString(36).slice(2, 14);

export function anthropicMessageToOpenAIChat(message: Json, opts: ResponseOptions): Json {
  const blocks = Array.isArray(message.content) ? message.content.filter(isObject) : [];
  const structured = blocks.find((b) => b.type === "tool_use" && b.name === opts.structuredTool);
  const texts = blocks.filter((b) => b.type === "text").map((b) => String(b.text ?? ""));
  const calls = blocks
    .filter((b) => b.type === "tool_use" && b !== structured)
    .map((b) => ({
      id: b.id,
      type: "function",
      function: { name: b.name, arguments: JSON.stringify(b.input ?? {}) },
    }));
  // The forced tool's input is the answer: only it, so that the OpenAI SDK's parse() reads JSON.
  const content = structured ? JSON.stringify(structured.input ?? {}) : texts.length ? texts.join("") : null;
  const reply: Json = { role: "assistant", content, refusal: null };
  if (calls.length) reply.tool_calls = calls;
  return {
    id: chatCompletionId(message.id),
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: opts.model,
    choices: [
      {
        index: 0,
        message: reply,
        logprobs: null,
        finish_reason: finishReason(message.stop_reason, !!structured) ?? "stop",
      },
    ],
    usage: openAIUsage(message.usage),
  };
}

/**
 * Tool call arguments the upstream model wrote are not always JSON (cut off by the token limit): Anthropic's
 * input must be an object, so those arrive as `{}` only when the answer was cut short; otherwise it is an error.
 */
export class UnreadableToolArguments extends Error {}

export function openAIChatToAnthropicMessage(completion: Json, opts: ResponseOptions): Json {
  const choice =
    Array.isArray(completion.choices) && isObject(completion.choices[0]) ? completion.choices[0] : {};
  const message = isObject(choice.message) ? choice.message : {};
  const content: Json[] = [];
  if (typeof message.content === "string" && message.content)
    content.push({ type: "text", text: message.content });
  if (typeof message.refusal === "string" && message.refusal)
    content.push({ type: "text", text: message.refusal });
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls.filter(isObject) : [];
  for (const call of calls) {
    const fn = isObject(call.function) ? call.function : {};
    content.push({
      type: "tool_use",
      id: call.id,
      name: fn.name,
      input: parseArguments(fn.arguments, choice.finish_reason),
    });
  }
  return {
    id: messageId(completion.id),
    type: "message",
    role: "assistant",
    model: opts.model,
    content,
    stop_reason:
      typeof message.refusal === "string" && message.refusal
        ? "refusal"
        : (stopReason(choice.finish_reason) ?? "end_turn"),
    stop_sequence: null,
    stop_details: null,
    container: null,
    diagnostics: null,
    usage: anthropicUsage(completion.usage),
  };
}

function parseArguments(args: unknown, finish: unknown): Json {
  if (typeof args !== "string" || args.trim() === "") return {};
  try {
    const input = JSON.parse(args);
    if (isObject(input)) return input;
  } catch {
    // below
  }
  if (finish === "length") return {};
  throw new UnreadableToolArguments("the upstream tool call's arguments are not a JSON object");
}
