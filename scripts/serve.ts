import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";

/** Adapts a fetch-style handler to node:http, streaming both ways, and aborting the request when the client leaves. */
export function serveFetchHandler(handler: (req: Request) => Promise<Response>) {
  return async (incoming: IncomingMessage, outgoing: ServerResponse) => {
    const controller = new AbortController();
    outgoing.on("close", () => {
      if (!outgoing.writableFinished) controller.abort();
    });
    const url = `http://${incoming.headers.host ?? "localhost"}${incoming.url ?? "/"}`;
    const hasBody = incoming.method !== "GET" && incoming.method !== "HEAD";
    const request = new Request(url, {
      method: incoming.method,
      headers: incoming.headers as Record<string, string>,
      body: hasBody ? (Readable.toWeb(incoming) as ReadableStream) : undefined,
      signal: controller.signal,
      // @ts-expect-error Node's fetch needs this for a streamed request body.
      duplex: "half",
    });
    const response = await handler(request);
    outgoing.writeHead(response.status, Object.fromEntries(response.headers));
    if (!response.body) return outgoing.end();
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      outgoing.write(value);
    }
    outgoing.end();
  };
}
