import { GatewayError } from "../errors";
import type { SseEvent } from "../translate/types";

/** No provider's event comes near this; a frame that grows past it is refused, not buffered. */
const MAX_FRAME_CHARS = 16 * 2 ** 20;

/** One event as it arrived: its fields, and its frame's exact text (passed on unchanged). */
export type ParsedEvent = SseEvent & { raw: string };

/**
 * An incremental server-sent-events reader: text in (any split), whole events out. Comment lines (`: ping`)
 * and frames without data are skipped; lines may end in \n, \r\n or \r, as the spec allows.
 */
export class SseReader {
  /** What came since the last whole frame, kept as pieces: joined only once a frame's end has arrived. */
  private pieces: string[] = [];
  private pending = 0;
  /** The last characters before this piece, where a frame's end may begin. */
  private tail = "";

  push(text: string): ParsedEvent[] {
    const events: ParsedEvent[] = [];
    // Only the new text (and the few characters before it) can hold a frame's end: a frame arriving in small
    // pieces is not searched (or flattened) again for every piece.
    if (!frameEnd(this.tail + text)) {
      this.pieces.push(text);
      this.pending += text.length;
      this.tail = (this.tail + text).slice(-3);
      if (this.pending > MAX_FRAME_CHARS)
        throw new GatewayError(
          "server",
          `the provider sent an event larger than ${MAX_FRAME_CHARS / 2 ** 20} MiB`,
          502,
        );
      return events;
    }
    let buffer = this.pieces.join("") + text;
    for (;;) {
      const end = frameEnd(buffer);
      if (!end) break;
      const raw = buffer.slice(0, end.at);
      buffer = buffer.slice(end.at + end.length);
      const event = parseFrame(raw);
      if (event) events.push(event);
    }
    this.pieces = buffer ? [buffer] : [];
    this.pending = buffer.length;
    this.tail = buffer.slice(-3);
    return events;
  }

  /** The stream ended: a last frame without its blank line still counts (some servers end that way). */
  end(): ParsedEvent[] {
    const rest = this.pieces.join("");
    this.pieces = [];
    this.pending = 0;
    this.tail = "";
    const event = rest.trim() ? parseFrame(rest) : undefined;
    return event ? [event] : [];
  }
}

function frameEnd(text: string): { at: number; length: number } | undefined {
  const match = /\r\n\r\n|\n\n|\r\r/.exec(text);
  return match ? { at: match.index, length: match[0].length } : undefined;
}

function parseFrame(raw: string): ParsedEvent | undefined {
  let event: string | undefined;
  const data: string[] = [];
  for (const line of raw.split(/\r\n|\n|\r/)) {
    if (!line || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") event = value;
    else if (field === "data") data.push(value);
  }
  if (!data.length) return undefined;
  return { ...(event ? { event } : {}), data: data.join("\n"), raw };
}

/** An event's frame, for events we write (translated ones): `event:` when named, then its data. */
export function frame(event: SseEvent): string {
  const lines = event.data.split("\n").map((line) => `data: ${line}`);
  return `${event.event ? `event: ${event.event}\n` : ""}${lines.join("\n")}\n\n`;
}
