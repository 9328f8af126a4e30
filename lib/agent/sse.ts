import type { AgentEvent } from "@/lib/turns/events";

const encoder = new TextEncoder();

/** One server-sent event: the event type as its name, the rest as JSON data. */
export function sseFrame(event: AgentEvent): Uint8Array {
  const { type, ...data } = event;
  return encoder.encode(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
}

export const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  connection: "keep-alive",
  // Proxies such as nginx would otherwise buffer the stream and the text would arrive all at once.
  "x-accel-buffering": "no",
};

/**
 * Streams a turn's events as SSE. The turn runs to its end even if the client goes away (its signal is
 * aborted, which is Stop), so the ledger and the conversation are always complete.
 */
export function sseResponse(
  events: AsyncGenerator<AgentEvent>,
  headers: Record<string, string> = {},
): Response {
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      let open = true;
      for await (const event of events) {
        if (!open) continue;
        try {
          controller.enqueue(sseFrame(event));
        } catch {
          open = false; // the client left; keep draining so the turn finishes and is recorded
        }
      }
      if (open) controller.close();
    },
  });
  return new Response(body, { headers: { ...SSE_HEADERS, ...headers } });
}
