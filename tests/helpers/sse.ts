// Reading the drawer's turn stream (lib/agent/sse.ts) the way a browser's EventSource would.

/** One server-sent event: its `event:` name (`message` when it has none) and its `data:` line as JSON. */
export type SseFrame = { event: string; data: Record<string, unknown> };

/**
 * Reads an SSE body to its end, event by event as the bytes arrive (any split). Comment blocks (`: keep-alive`)
 * are skipped. `onFrame` runs on each event before the next is read, so a test can act mid-stream (Approve,
 * Stop) while the turn is still running.
 */
export async function readSse(
  res: Response,
  onFrame?: (frame: SseFrame) => void | Promise<void>,
): Promise<SseFrame[]> {
  const frames: SseFrame[] = [];
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end = buffer.indexOf("\n\n");
    while (end >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf("\n\n");
      if (block === "" || block.startsWith(":")) continue;
      const frame = {
        event: block.match(/^event: (.*)$/m)?.[1] ?? "message",
        data: JSON.parse(block.match(/^data: (.*)$/m)?.[1] ?? "{}"),
      };
      frames.push(frame);
      await onFrame?.(frame);
    }
  }
  return frames;
}
