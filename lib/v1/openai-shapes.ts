import { z } from "zod";
import type { ChatMessage, ChatResponse, ToolSchema, Usage } from "@/lib/gateway/types";
import { CALL_ERROR_STATUS, type CallError, type CallErrorClass } from "@/lib/pipeline/errors";

const text = z
  .union([z.string(), z.array(z.object({ type: z.string(), text: z.string().optional() }).loose())])
  .nullish();
const toolCall = z.object({
  id: z.string(),
  type: z.literal("function").optional(),
  function: z.object({ name: z.string(), arguments: z.string() }),
});

export const chatCompletionRequest = z.object({
  model: z.string().min(1, "model is required"),
  messages: z
    .array(
      z.discriminatedUnion("role", [
        z.object({ role: z.enum(["system", "developer"]), content: text }),
        z.object({ role: z.literal("user"), content: text }),
        z.object({ role: z.literal("assistant"), content: text, tool_calls: z.array(toolCall).optional() }),
        z.object({ role: z.literal("tool"), content: text, tool_call_id: z.string() }),
      ]),
    )
    .min(1, "messages must not be empty"),
  tools: z
    .array(
      z.object({
        type: z.literal("function"),
        function: z.object({
          name: z.string(),
          description: z.string().optional(),
          parameters: z.record(z.string(), z.unknown()).optional(),
        }),
      }),
    )
    .optional(),
  tool_choice: z
    .union([
      z.enum(["auto", "none", "required"]),
      z.object({ type: z.literal("function"), function: z.object({ name: z.string() }) }),
    ])
    .optional(),
  temperature: z.number().min(0).max(2).optional(),
  max_tokens: z.number().int().positive().optional(),
  max_completion_tokens: z.number().int().positive().optional(),
  stream: z.boolean().optional(),
  stream_options: z.object({ include_usage: z.boolean().optional() }).optional(),
});
export type ChatCompletionRequest = z.infer<typeof chatCompletionRequest>;

const flatten = (content: z.infer<typeof text>) =>
  typeof content === "string" ? content : (content ?? []).map((p) => p.text ?? "").join("");

export function toChatMessages(req: ChatCompletionRequest): ChatMessage[] {
  const names = new Map<string, string>();
  return req.messages.map((m) => toChatMessage(m, names));
}

function toChatMessage(
  m: ChatCompletionRequest["messages"][number],
  names: Map<string, string>,
): ChatMessage {
  if (m.role !== "assistant" && m.role !== "user" && m.role !== "tool")
    return { role: "system", content: flatten(m.content) };
  if (m.role === "user") return { role: "user", content: flatten(m.content) };
  if (m.role === "tool") {
    return {
      role: "tool",
      toolCallId: m.tool_call_id,
      name: names.get(m.tool_call_id) ?? "tool",
      content: flatten(m.content),
    };
  }
  const toolCalls = (m.tool_calls ?? []).map((c) => {
    // Results name only the call id; remember the tool's name for providers that want it.
    names.set(c.id, c.function.name);
    let args: Record<string, unknown> = {};
    try {
      args = JSON.parse(c.function.arguments || "{}") as Record<string, unknown>;
    } catch {
      args = { _raw: c.function.arguments };
    }
    return { id: c.id, name: c.function.name, args };
  });
  return { role: "assistant", content: flatten(m.content), ...(toolCalls.length ? { toolCalls } : {}) };
}

export function toTools(req: ChatCompletionRequest): ToolSchema[] | undefined {
  return req.tools?.map((t) => ({
    name: t.function.name,
    description: t.function.description ?? "",
    parameters: t.function.parameters ?? { type: "object", properties: {} },
  }));
}

export function openAIUsage(u: Usage) {
  return {
    prompt_tokens: u.inputTokens + u.cachedInputTokens + u.cacheWriteTokens,
    completion_tokens: u.outputTokens,
    total_tokens: u.inputTokens + u.cachedInputTokens + u.cacheWriteTokens + u.outputTokens,
    prompt_tokens_details: { cached_tokens: u.cachedInputTokens },
    completion_tokens_details: { reasoning_tokens: u.reasoningTokens },
  };
}

const finish = (r: ChatResponse["finishReason"]) => (r === "other" ? "stop" : r);

export function completionBody(id: string, created: number, res: ChatResponse) {
  return {
    id,
    object: "chat.completion",
    created,
    model: res.stamp.servedModel ?? res.stamp.requestedModel,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: res.message.content || (res.message.toolCalls.length ? null : ""),
          refusal: null,
          ...(res.message.toolCalls.length
            ? {
                tool_calls: res.message.toolCalls.map((c) => ({
                  id: c.id,
                  type: "function",
                  function: { name: c.name, arguments: JSON.stringify(c.args) },
                })),
              }
            : {}),
        },
        finish_reason: finish(res.finishReason),
        logprobs: null,
      },
    ],
    usage: openAIUsage(res.stamp.usage),
  };
}

/** OpenAI's error body, which every OpenAI client knows how to read. */
export function openAIError(
  status: number,
  message: string,
  code: string | null = null,
  param: string | null = null,
  errorType?: string,
) {
  const type =
    errorType ??
    (status === 401
      ? "invalid_request_error"
      : status === 429
        ? "rate_limit_error"
        : status >= 500
          ? "server_error"
          : "invalid_request_error");
  return Response.json({ error: { message, type, param, code } }, { status });
}

/** OpenAI's error types for the refusals its clients treat specially (the others take the status's type). */
const OPENAI_ERROR_TYPE: Partial<Record<CallErrorClass, string>> = {
  budget_exceeded: "insufficient_quota",
  rate_limit_exceeded: "rate_limit_error",
};

/** The answer to a call that failed before its first token: its status from the one table, OpenAI's body. */
export function callErrorResponse(error: CallError, headers: Headers): Response {
  if (error.retryAfterSeconds !== undefined) headers.set("retry-after", String(error.retryAfterSeconds));
  // A spent budget does not come back in seconds: OpenAI's clients must not sit retrying it.
  if (error.class === "budget_exceeded") headers.set("x-should-retry", "false");
  const res = openAIError(
    CALL_ERROR_STATUS[error.class],
    error.message,
    error.class,
    null,
    OPENAI_ERROR_TYPE[error.class],
  );
  for (const [name, value] of headers) res.headers.set(name, value);
  return res;
}

export { finish as finishReason };
