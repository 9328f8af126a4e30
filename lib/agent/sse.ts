import type { AgentEvent } from "@/lib/turns/events";

const encoder = new TextEncoder();

/** One server-sent event: the event type as its name, the rest as JSON data. */
export function sseFrame(event: AgentEvent): Uint8Array {
  const { type, ...data } = event;
  return encoder.encode(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
}

/** A comment line (SSE readers skip it) sent this often, so a quiet stream keeps its connection. */
const KEEP_ALIVE_MS = 15_000;
const KEEP_ALIVE = encoder.encode(": keep-alive\n\n");

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
      const send = (frame: Uint8Array) => {
        if (!open) return;
        try {
          controller.enqueue(frame);
        } catch {
          open = false; // the client left; keep draining so the turn finishes and is recorded
        }
      };
      // A quiet stream (a slow tool, a call waiting for the user's Approve) must not look dead to a proxy.
      const keepAlive = setInterval(() => send(KEEP_ALIVE), KEEP_ALIVE_MS);
      try {
        for await (const event of events) send(sseFrame(event));
      } finally {
        clearInterval(keepAlive);
      }
      if (open) controller.close();
    },
  });
  return new Response(body, { headers: { ...SSE_HEADERS, ...headers } });
}
