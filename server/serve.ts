import type { IncomingMessage, ServerResponse } from "node:http";
import { v7 as uuidv7 } from "uuid";
import { apiBodyLimits, declaredTooLarge, tooLarge } from "@/lib/http/limits";

/**
 * Reads a request body whole (API requests are small, and one Buffer is far cheaper than a web stream), or
 * null as soon as it passes `maxBytes`, by its Content-Length or while it streams in: the rest is not kept.
 */
function readBody(incoming: IncomingMessage, maxBytes: number): Promise<Buffer | null> {
  if (declaredTooLarge(incoming.headers["content-length"], maxBytes)) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const onData = (chunk: Buffer) => {
      total += chunk.length;
      if (total <= maxBytes) return void chunks.push(chunk);
      incoming.off("data", onData).off("end", onEnd);
      chunks.length = 0;
      resolve(null);
    };
    const onEnd = () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    incoming.on("data", onData).on("end", onEnd).on("error", reject);
  });
}

/**
 * Answers 413 in OpenAI's error shape without calling the handler (nothing goes upstream). The client may still
 * be sending: up to `maxBytes` more are read and dropped so it can read the answer instead of a reset, and a
 * body longer than that (or endless) has its connection closed.
 */
function refuseTooLarge(incoming: IncomingMessage, outgoing: ServerResponse, maxBytes: number): void {
  let dropped = 0;
  incoming.on("data", (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > maxBytes) incoming.socket.destroy();
  });
  incoming.resume();
  const body = JSON.stringify({
    error: {
      message: `${tooLarge(maxBytes).message.replace(/^t/, "T")}.`,
      type: "invalid_request_error",
      param: null,
      code: "request_too_large",
    },
  });
  outgoing.writeHead(413, {
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(body)),
    "x-request-id": uuidv7(),
  });
  outgoing.end(body);
}

/**
 * Adapts a fetch-style handler to node:http: the request body is read whole (up to `maxBodyBytes`, by default
 * `MAX_BODY_BYTES`: past it, 413), a streamed answer (SSE) is written as it comes and anything else in one write
 * with its length; the request is aborted when the client leaves.
 */
export function serveFetchHandler(
  handler: (req: Request) => Promise<Response>,
  options: { maxBodyBytes?: number } = {},
) {
  const maxBodyBytes = options.maxBodyBytes ?? apiBodyLimits().maxBytes;
  return async (incoming: IncomingMessage, outgoing: ServerResponse) => {
    const controller = new AbortController();
    outgoing.on("close", () => {
      if (!outgoing.writableFinished) controller.abort();
    });
    const url = `http://${incoming.headers.host ?? "localhost"}${incoming.url ?? "/"}`;
    const hasBody = incoming.method !== "GET" && incoming.method !== "HEAD";
    let body: Buffer | null | undefined;
    try {
      body = hasBody ? await readBody(incoming, maxBodyBytes) : undefined;
    } catch {
      // The client went away mid-upload: nobody is left to answer.
      return void incoming.socket.destroy();
    }
    if (body === null) return refuseTooLarge(incoming, outgoing, maxBodyBytes);
    const headers = new Headers();
    for (const [name, value] of Object.entries(incoming.headers))
      if (typeof value === "string") headers.set(name, value);
      else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    const request = new Request(url, {
      method: incoming.method,
      headers,
      body: body as unknown as BodyInit | undefined,
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
