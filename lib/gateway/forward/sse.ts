import type { SseEvent } from "../translate/types";

/** One event as it arrived: its fields, and its frame's exact text (passed on unchanged). */
export type ParsedEvent = SseEvent & { raw: string };

/**
 * An incremental server-sent-events reader: text in (any split), whole events out. Comment lines (`: ping`)
 * and frames without data are skipped; lines may end in \n, \r\n or \r, as the spec allows.
 */
export class SseReader {
  private buffer = "";

  push(text: string): ParsedEvent[] {
    this.buffer += text;
    const events: ParsedEvent[] = [];
    for (;;) {
      const end = frameEnd(this.buffer);
      if (!end) break;
      const raw = this.buffer.slice(0, end.at);
      this.buffer = this.buffer.slice(end.at + end.length);
      const event = parseFrame(raw);
      if (event) events.push(event);
    }
    return events;
  }

  /** The stream ended: a last frame without its blank line still counts (some servers end that way). */
  end(): ParsedEvent[] {
    const rest = this.buffer;
    this.buffer = "";
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
