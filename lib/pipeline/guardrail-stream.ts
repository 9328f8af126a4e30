/**
 * Output rules on a /v1 event stream, in the caller's framing: the text deltas of each part (a chat choice, a
 * content block, a Responses output text) go through a stream guard and the call's pseudonym restorer, and are
 * written back into the frames that carried them. The last text frame of a part is held until the next one arrives
 * or the part closes, so what the guard held back is flushed into a real frame (no frame is invented: Responses'
 * sequence numbers stay as the provider sent them), and the frames that repeat a part's whole text (Responses'
 * `done` events and its final response) are rewritten to what was emitted.
 */
import type { WireFormat } from "@/lib/gateway/forward/formats";
import type { Json } from "@/lib/gateway/translate/types";
import type { Pseudonyms } from "@/lib/guardrails/pseudonymise";
import type { BlockedBy } from "@/lib/guardrails/stage-result";
import type { StreamGuard } from "@/lib/guardrails/stream-guard";

/** Where a format's frames carry text, and where a part's text ends. */
type Codec = {
  /** The part a frame's text delta belongs to, and the delta; undefined for a frame without one. */
  delta(event: Json): { part: string; text: string } | undefined;
  setDelta(event: Json, text: string): void;
  /** The parts a frame closes ("*": all), whose held text must go out before it. */
  closes(event: Json): string | undefined;
  /** Frames that repeat a part's whole text: rewritten to what was emitted for it. */
  rewriteWhole?(event: Json, emitted: (part: string) => string | undefined): void;
};

const openAIChat: Codec = {
  delta(event) {
    const choices = event.choices as Json[] | undefined;
    const choice = choices?.length === 1 ? choices[0] : undefined;
    const content = (choice?.delta as Json | undefined)?.content;
    return typeof content === "string" ? { part: String(choice!.index ?? 0), text: content } : undefined;
  },
  setDelta(event, text) {
    ((event.choices as Json[])[0]!.delta as Json).content = text;
  },
  closes(event) {
    const choice = (event.choices as Json[] | undefined)?.[0];
    return choice && choice.finish_reason != null ? String(choice.index ?? 0) : undefined;
  },
};

const anthropicMessages: Codec = {
  delta(event) {
    const delta = event.delta as Json | undefined;
    return event.type === "content_block_delta" &&
      delta?.type === "text_delta" &&
      typeof delta.text === "string"
      ? { part: String(event.index), text: delta.text }
      : undefined;
  },
  setDelta(event, text) {
    (event.delta as Json).text = text;
  },
  closes(event) {
    if (event.type === "content_block_stop") return String(event.index);
    return event.type === "message_delta" || event.type === "message_stop" ? "*" : undefined;
  },
};

const partOf = (itemId: unknown, contentIndex: unknown) => `${String(itemId)}:${String(contentIndex ?? 0)}`;

const openAIResponses: Codec = {
  delta(event) {
    return event.type === "response.output_text.delta" && typeof event.delta === "string"
      ? { part: partOf(event.item_id, event.content_index), text: event.delta }
      : undefined;
  },
  setDelta(event, text) {
    event.delta = text;
  },
  closes(event) {
    if (event.type === "response.output_text.done") return partOf(event.item_id, event.content_index);
    return typeof event.type === "string" &&
      /^response\.(completed|incomplete|failed|output_item\.done)$/.test(event.type)
      ? "*"
      : undefined;
  },
  rewriteWhole(event, emitted) {
    const setParts = (item: Json | undefined) => {
      if (!item || !Array.isArray(item.content)) return;
      (item.content as Json[]).forEach((content, index) => {
        const text = emitted(partOf(item.id, index));
        if (text !== undefined && content.type === "output_text") content.text = text;
      });
    };
    if (event.type === "response.output_text.done") {
      const text = emitted(partOf(event.item_id, event.content_index));
      if (text !== undefined) event.text = text;
    } else if (event.type === "response.content_part.done") {
      const text = emitted(partOf(event.item_id, event.content_index));
      const part = event.part as Json | undefined;
      if (text !== undefined && part?.type === "output_text") part.text = text;
    } else if (event.type === "response.output_item.done") setParts(event.item as Json);
    else if (/^response\.(completed|incomplete|failed)$/.test(String(event.type)))
      for (const item of ((event.response as Json | undefined)?.output as Json[] | undefined) ?? [])
        setParts(item);
  },
};

const CODECS: Partial<Record<WireFormat, Codec>> = {
  "openai-chat": openAIChat,
  "anthropic-messages": anthropicMessages,
  "openai-responses": openAIResponses,
};

/** Whether output rules can follow a format's stream. */
export const streamGuardable = (format: WireFormat): boolean => CODECS[format] !== undefined;

/** One SSE frame: its lines, and its JSON data when it has one. */
type Frame = { lines: string[]; dataLine: number; event: Json | undefined };

function parseFrame(text: string): Frame {
  const lines = text.split("\n");
  const dataLine = lines.findIndex((line) => line.startsWith("data:"));
  let event: Json | undefined;
  if (dataLine !== -1) {
    const data = lines[dataLine]!.slice(5).trimStart();
    if (data.startsWith("{")) {
      try {
        event = JSON.parse(data) as Json;
      } catch {
        event = undefined;
      }
    }
  }
  return { lines, dataLine, event };
}

function printFrame(frame: Frame): string {
  if (frame.event && frame.dataLine !== -1)
    frame.lines[frame.dataLine] = `data: ${JSON.stringify(frame.event)}`;
  return `${frame.lines.join("\n")}\n\n`;
}

type PartState = {
  guard: StreamGuard;
  restore: ReturnType<Pseudonyms["restorer"]>;
  held?: Frame;
  emitted: string;
};

/**
 * Rewrites a format's SSE bytes as they come: `push` takes one `bytes` event's data (whole frames) and answers
 * what to send now; `blockedBy` says when a rule cut the stream (nothing more is sent after that).
 */
export function guardedFrames(
  format: WireFormat,
  newGuard: () => StreamGuard,
  pseudonyms: Pseudonyms,
): {
  push(data: string): string;
  end(): string;
  readonly blockedBy: BlockedBy | undefined;
  guards(): StreamGuard[];
} {
  const codec = CODECS[format]!;
  const parts = new Map<string, PartState>();
  let blockedBy: BlockedBy | undefined;

  const stateOf = (part: string): PartState => {
    let state = parts.get(part);
    if (!state) {
      state = { guard: newGuard(), restore: pseudonyms.restorer(), emitted: "" };
      parts.set(part, state);
    }
    return state;
  };
  const release = (state: PartState, text: string): string => {
    const out = state.restore.push(text);
    state.emitted += out;
    return out;
  };
  /** The part's held frame with the guard's tail added, or "" when nothing is held. */
  const flush = (state: PartState): string => {
    const tail = state.guard.end();
    let out = release(state, tail);
    const rest = state.restore.end();
    state.emitted += rest;
    out += rest;
    if (state.guard.blockedBy) blockedBy ??= state.guard.blockedBy;
    const held = state.held;
    state.held = undefined;
    if (!held) return "";
    codec.setDelta(held.event!, (codec.delta(held.event!)?.text ?? "") + out);
    return printFrame(held);
  };

  function one(text: string): string {
    if (blockedBy) return "";
    const frame = parseFrame(text);
    const event = frame.event;
    // OpenAI's closing `[DONE]`: whatever is still held goes out before it.
    if (!event) return text.includes("[DONE]") ? `${end()}${text}\n\n` : `${text}\n\n`;
    const delta = codec.delta(event);
    if (delta) {
      const state = stateOf(delta.part);
      const out = release(state, state.guard.push(delta.text));
      if (state.guard.blockedBy) {
        blockedBy = state.guard.blockedBy;
        const held = state.held;
        state.held = undefined;
        if (!held) return "";
        codec.setDelta(held.event!, (codec.delta(held.event!)?.text ?? "") + out);
        return printFrame(held);
      }
      codec.setDelta(event, out);
      const previous = state.held;
      state.held = frame;
      return previous ? printFrame(previous) : "";
    }
    const closes = codec.closes(event);
    let out = "";
    if (closes !== undefined)
      for (const [part, state] of parts) if (closes === "*" || closes === part) out += flush(state);
    if (blockedBy) return out;
    codec.rewriteWhole?.(event, (part) => parts.get(part)?.emitted);
    return out + printFrame(frame);
  }

  /** Every part's held text, at the end of the stream. */
  function end(): string {
    let out = "";
    for (const state of parts.values()) out += flush(state);
    return out;
  }

  return {
    end,
    push(data) {
      let out = "";
      for (const text of data.split("\n\n")) if (text.trim() !== "") out += one(text);
      return out;
    },
    get blockedBy() {
      return blockedBy;
    },
    guards: () => [...parts.values()].map((state) => state.guard),
  };
}
