import type { AdapterRequest, ModelAdapter } from "../adapters/adapter";
import type { Json } from "../translate/types";
import type { ChatMessage, ToolCall, ToolSchema, Usage } from "../types";

const textOf = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
      ? (content as Json[]).map((p) => (typeof p.text === "string" ? p.text : "")).join("")
      : "";

/** An OpenAI chat body as the provider-neutral request an in-process model (the offline demo) reads. */
export function adapterRequestOf(body: Json, model: string): AdapterRequest {
  const names = new Map<string, string>();
  const messages: ChatMessage[] = ((body.messages ?? []) as Json[]).map((m): ChatMessage => {
    if (m.role === "assistant") {
      const calls = Array.isArray(m.tool_calls) ? (m.tool_calls as Json[]) : [];
      const toolCalls: ToolCall[] = calls.map((c) => {
        const fn = (c.function ?? {}) as Json;
        names.set(String(c.id), String(fn.name));
        let args: Record<string, unknown> = {};
        try {
          args = JSON.parse(String(fn.arguments || "{}")) as Record<string, unknown>;
        } catch {
          args = { _raw: fn.arguments };
        }
        return { id: String(c.id), name: String(fn.name), args };
      });
      return { role: "assistant", content: textOf(m.content), ...(toolCalls.length ? { toolCalls } : {}) };
    }
    if (m.role === "tool") {
      const id = String(m.tool_call_id);
      return { role: "tool", toolCallId: id, name: names.get(id) ?? "tool", content: textOf(m.content) };
    }
    if (m.role === "user") return { role: "user", content: textOf(m.content) };
    return { role: "system", content: textOf(m.content) };
  });
  const tools: ToolSchema[] | undefined = Array.isArray(body.tools)
    ? (body.tools as Json[]).map((t) => {
        const fn = (t.function ?? {}) as Json;
        return {
          name: String(fn.name),
          description: String(fn.description ?? ""),
          parameters: (fn.parameters as Record<string, unknown>) ?? { type: "object", properties: {} },
        };
      })
    : undefined;
  const choice = body.tool_choice as
    | AdapterRequest["toolChoice"]
    | { function?: { name?: string } }
    | undefined;
  return {
    model,
    messages,
    tools,
    toolChoice:
      typeof choice === "object" && choice !== null
        ? { name: String((choice as { function?: { name?: string } }).function?.name) }
        : choice,
    temperature: typeof body.temperature === "number" ? body.temperature : undefined,
    maxTokens:
      typeof body.max_completion_tokens === "number"
        ? body.max_completion_tokens
        : typeof body.max_tokens === "number"
          ? body.max_tokens
          : undefined,
  };
}

const openAIUsage = (u: Usage) => ({
  prompt_tokens: u.inputTokens + u.cachedInputTokens + u.cacheWriteTokens,
  completion_tokens: u.outputTokens,
  total_tokens: u.inputTokens + u.cachedInputTokens + u.cacheWriteTokens + u.outputTokens,
  prompt_tokens_details: { cached_tokens: u.cachedInputTokens },
  completion_tokens_details: { reasoning_tokens: u.reasoningTokens },
});

const wireCalls = (calls: ToolCall[]) =>
  calls.map((c, index) => ({
    index,
    id: c.id,
    type: "function",
    function: { name: c.name, arguments: JSON.stringify(c.args) },
  }));

/**
 * Serves an OpenAI chat body from an in-process model (the offline demo, or a test's scripted one) as the
 * Response an OpenAI server would give: so the rest of the path, translation included, is the same as over HTTP.
 * An adapter's failure rejects (JSON) or errors the stream with the adapter's own error, for the router to classify.
 */
export async function inProcessResponse(
  adapter: ModelAdapter,
  body: Json,
  model: string,
  stream: boolean,
  signal: AbortSignal,
): Promise<Response> {
  const req = adapterRequestOf(body, model);
  const id = `chatcmpl-local-${Date.now().toString(36)}`;
  const created = Math.floor(Date.now() / 1000);
  if (!stream) {
    const r = await adapter.chat(req, signal);
    return Response.json({
      id,
      object: "chat.completion",
      created,
      model: r.servedModel,
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: r.content || (r.toolCalls.length ? null : ""),
            refusal: null,
            ...(r.toolCalls.length
              ? { tool_calls: wireCalls(r.toolCalls).map(({ index: _, ...c }) => c) }
              : {}),
          },
          finish_reason: r.finishReason === "other" ? "stop" : r.finishReason,
          logprobs: null,
        },
      ],
      usage: openAIUsage(r.usage),
    });
  }
  const includeUsage = ((body.stream_options ?? {}) as Json).include_usage === true;
  const encoder = new TextEncoder();
  const events = adapter.stream(req, signal)[Symbol.asyncIterator]();
  const chunk = (served: string, delta: Json, finish: string | null = null) =>
    encoder.encode(
      `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model: served, choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }] })}\n\n`,
    );
  let calls = 0;
  let opened = false;
  const readable = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        if (!opened) {
          opened = true;
          controller.enqueue(chunk(model, { role: "assistant", content: "" }));
        }
        const next = await events.next();
        if (next.done) return controller.close();
        const e = next.value;
        if (e.type === "text") controller.enqueue(chunk(model, { content: e.delta }));
        else if (e.type === "tool_call")
          controller.enqueue(chunk(model, { tool_calls: [{ ...wireCalls([e.call])[0]!, index: calls++ }] }));
        else if (e.type === "end") {
          controller.enqueue(chunk(e.servedModel, {}, e.finishReason === "other" ? "stop" : e.finishReason));
          if (includeUsage)
            controller.enqueue(
              encoder.encode(
                `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model: e.servedModel, choices: [], usage: openAIUsage(e.usage) })}\n\n`,
              ),
            );
          controller.enqueue(encoder.encode("data: [DONE]\n\n"));
        }
      } catch (error) {
        controller.error(error);
      }
    },
    async cancel() {
      await events.return?.(undefined);
    },
  });
  return new Response(readable, { headers: { "content-type": "text/event-stream" } });
}
