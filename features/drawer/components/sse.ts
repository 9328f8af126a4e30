import type { AgentEvent } from "./types";

const EVENT_TYPES = new Set<AgentEvent["type"]>([
  "turn",
  "text",
  "tool_call",
  "tool_result",
  "notice",
  "guardrail",
  "message",
  "note",
  "confirm",
  "confirmation",
  "error",
  "done",
]);

/**
 * Incremental parser for the turn stream (`event: <type>\ndata: <json>\n\n`). Network chunks split frames
 * anywhere, even inside a UTF-8 character, so bytes are decoded in streaming mode and only whole frames
 * are parsed. Unknown event types and malformed JSON are skipped rather than ending the turn.
 */
export class SseParser {
  private buffer = "";
  private readonly decoder = new TextDecoder();

  push(chunk: Uint8Array): AgentEvent[] {
    this.buffer += this.decoder.decode(chunk, { stream: true }).replace(/\r\n?/g, "\n");
    return this.drain();
  }

  /** The stream ended: a last frame without its blank line still counts. */
  end(): AgentEvent[] {
    this.buffer += `${this.decoder.decode()}\n\n`;
    return this.drain();
  }

  private drain(): AgentEvent[] {
    const events: AgentEvent[] = [];
    let boundary = this.buffer.indexOf("\n\n");
    while (boundary !== -1) {
      const frame = this.buffer.slice(0, boundary);
      this.buffer = this.buffer.slice(boundary + 2);
      const event = parseFrame(frame);
      if (event) events.push(event);
      boundary = this.buffer.indexOf("\n\n");
    }
    return events;
  }
}

export function parseFrame(frame: string): AgentEvent | null {
  let type = ""; // every frame of ours names its type; the SSE default ("message") would be a wrong guess
  const data: string[] = [];
  for (const line of frame.split("\n")) {
    if (!line || line.startsWith(":")) continue; // comments keep proxies from timing out
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") type = value;
    else if (field === "data") data.push(value);
  }
  if (!data.length || !EVENT_TYPES.has(type as AgentEvent["type"])) return null;
  try {
    const payload: unknown = JSON.parse(data.join("\n"));
    if (!payload || typeof payload !== "object") return null;
    return { ...payload, type } as AgentEvent;
  } catch {
    return null;
  }
}

/** Reads a response body as batches of events: one batch per network chunk, so a chunk renders once. */
export async function* readEventBatches(body: ReadableStream<Uint8Array>): AsyncGenerator<AgentEvent[]> {
  const parser = new SseParser();
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const events = parser.push(value);
      if (events.length) yield events;
    }
    const rest = parser.end();
    if (rest.length) yield rest;
  } finally {
    reader.releaseLock();
  }
}
