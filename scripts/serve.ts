import type { IncomingMessage, ServerResponse } from "node:http";

/** Reads a request body whole: API requests are small, and one Buffer is far cheaper than a web stream. */
function readBody(incoming: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    incoming.on("error", reject);
  });
}

/**
 * Adapts a fetch-style handler to node:http: the request body is read whole, a streamed answer (SSE) is written
 * as it comes and anything else in one write with its length; the request is aborted when the client leaves.
 */
export function serveFetchHandler(handler: (req: Request) => Promise<Response>) {
  return async (incoming: IncomingMessage, outgoing: ServerResponse) => {
    const controller = new AbortController();
    outgoing.on("close", () => {
      if (!outgoing.writableFinished) controller.abort();
    });
    const url = `http://${incoming.headers.host ?? "localhost"}${incoming.url ?? "/"}`;
    const hasBody = incoming.method !== "GET" && incoming.method !== "HEAD";
    const headers = new Headers();
    for (const [name, value] of Object.entries(incoming.headers))
      if (typeof value === "string") headers.set(name, value);
      else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    const request = new Request(url, {
      method: incoming.method,
      headers,
      body: hasBody ? ((await readBody(incoming)) as unknown as BodyInit) : undefined,
      signal: controller.signal,
    });
    let response: Response;
    try {
      response = await handler(request);
    } catch (error) {
      // A handler that throws must not take the server down with it.
      console.error(error);
      response = Response.json(
        { error: { message: "internal error", type: "server_error" } },
        { status: 500 },
      );
    }
    const head = Object.fromEntries(response.headers);
    if (!response.body) {
      outgoing.writeHead(response.status, head);
      return outgoing.end();
    }
    if (!response.headers.get("content-type")?.startsWith("text/event-stream")) {
      const body = Buffer.from(await response.arrayBuffer());
      outgoing.writeHead(response.status, { ...head, "content-length": String(body.length) });
      return outgoing.end(body);
    }
    outgoing.writeHead(response.status, head);
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      outgoing.write(value);
    }
    outgoing.end();
  };
}
