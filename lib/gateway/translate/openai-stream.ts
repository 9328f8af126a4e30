/** OpenAI chat.completion.chunk events -> an Anthropic Messages event stream (named events, blocks one at a time). */
import { anthropicUsage, messageId, stopReason } from "./responses";
import { isObject } from "./rules";
import type { Json, SseEvent, StreamTranslator } from "./types";

export function openAIChatStreamToAnthropic(opts: { model: string }): StreamTranslator {
  let started = false;
  let stopped = false;
  let open: { index: number; key: "text" | number } | undefined;
  let nextIndex = 0;
  const toolBlocks = new Map<number, number>(); // OpenAI tool call index -> Anthropic block index
  let finish: string | undefined;
  let usage: Json | undefined;
  let refused = false;

  const event = (type: string, body: Json = {}): SseEvent => ({
    event: type,
    data: JSON.stringify({ type, ...body }),
  });

  function start(out: SseEvent[], id: unknown) {
    if (started) return;
    started = true;
    // Input tokens are known only at the end, from the usage chunk: message_delta's usage carries them.
    const message = {
      id: messageId(id),
      type: "message",
      role: "assistant",
      model: opts.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 0, output_tokens: 0 },
    };
    out.push(event("message_start", { message }));
  }
  function close(out: SseEvent[]) {
    if (!open) return;
    out.push(event("content_block_stop", { index: open.index }));
    open = undefined;
  }
  function text(out: SseEvent[], piece: string) {
    if (open?.key !== "text") {
      close(out);
      open = { index: nextIndex++, key: "text" };
      out.push(
        event("content_block_start", { index: open.index, content_block: { type: "text", text: "" } }),
      );
    }
    out.push(event("content_block_delta", { index: open.index, delta: { type: "text_delta", text: piece } }));
  }
  function toolCall(out: SseEvent[], call: Json) {
    const key = typeof call.index === "number" ? call.index : 0;
    const fn = isObject(call.function) ? call.function : {};
    let index = toolBlocks.get(key);
    if (index === undefined) {
      close(out);
      index = nextIndex++;
      toolBlocks.set(key, index);
      open = { index, key };
      const block = { type: "tool_use", id: call.id, name: fn.name ?? "", input: {} };
      out.push(event("content_block_start", { index, content_block: block }));
    }
    // OpenAI sends one call's arguments before the next call starts; a late piece still names its own block.
    if (typeof fn.arguments === "string" && fn.arguments) {
      out.push(
        event("content_block_delta", {
          index,
          delta: { type: "input_json_delta", partial_json: fn.arguments },
        }),
      );
    }
  }
  function stop(): SseEvent[] {
    if (!started || stopped) return [];
    stopped = true;
    const out: SseEvent[] = [];
    close(out);
    const { input_tokens, output_tokens, cache_read_input_tokens } = anthropicUsage(usage);
    const delta = {
      stop_reason: refused ? "refusal" : (stopReason(finish) ?? "end_turn"),
      stop_sequence: null,
    };
    const counts = usage ? { input_tokens, output_tokens, cache_read_input_tokens } : { output_tokens: 0 };
    out.push(event("message_delta", { delta, usage: counts }), event("message_stop"));
    return out;
  }

  return {
    push({ data }) {
      if (stopped) return [];
      if (data.trim() === "[DONE]") return stop();
      let chunk: unknown;
      try {
        chunk = JSON.parse(data);
      } catch {
        return [];
      }
      if (!isObject(chunk)) return [];
      if (isObject(chunk.error)) {
        const error = { type: "api_error", message: String(chunk.error.message ?? "upstream error") };
        return [event("error", { error })];
      }
      const out: SseEvent[] = [];
      start(out, chunk.id);
      if (isObject(chunk.usage)) usage = chunk.usage;
      const choice =
        Array.isArray(chunk.choices) && isObject(chunk.choices[0]) ? chunk.choices[0] : undefined;
      const delta = choice && isObject(choice.delta) ? choice.delta : {};
      if (typeof delta.content === "string" && delta.content) text(out, delta.content);
      if (typeof delta.refusal === "string" && delta.refusal) {
        refused = true;
        text(out, delta.refusal);
      }
      if (Array.isArray(delta.tool_calls))
        for (const call of delta.tool_calls.filter(isObject)) toolCall(out, call);
      if (typeof choice?.finish_reason === "string") {
        finish = choice.finish_reason;
        close(out);
      }
      // OpenAI sends the finish reason, then usage in a later chunk: message_delta waits for both (or [DONE]).
      if (finish !== undefined && usage !== undefined) out.push(...stop());
      return out;
    },
    end: stop,
  };
}
