import type { IncomingMessage, ServerResponse } from "node:http";
import { refuseTooLarge } from "@/features/v1/server/handler";
import { isDraining, trackInFlight } from "@/lib/core/process/lifecycle";
import { log } from "@/lib/core/process/log";
import {
  type ApiAnswer,
  type ApiHandler,
  type ApiRequest,
  jsonAnswer,
  pathOf,
  queryOf,
} from "@/lib/http/exchange";
import { apiBodyLimitFor, declaredTooLarge, streamsUpload } from "@/lib/http/limits";

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

/** What a refused body may still send, at least, before its connection is closed. */
const DRAIN_BYTES = 2 ** 20;

/**
 * Refuses a body past the limit (413) without calling the handler (nothing goes upstream). The client may still
 * be sending: up to `maxBytes` (at least 1 MiB) more are read and dropped so it can read the answer instead of a reset, and a body
 * longer than that (or endless) has its connection closed.
 */
function dropAndRefuse(
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  maxBytes: number,
  answer: ApiAnswer,
): Promise<void> {
  let dropped = 0;
  // A small limit still lets a body somewhat past it drain, so the client reads the 413 rather than a reset.
  const drainBytes = Math.max(maxBytes, DRAIN_BYTES);
  incoming.on("data", (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > drainBytes) incoming.socket.destroy();
  });
  incoming.resume();
  return write(outgoing, answer);
}

/**
 * Serves a transport-neutral handler (lib/http/exchange.ts) from node:http, with nothing in between: the body is
 * read whole (up to `maxBodyBytes`, by default the path's limit, `apiBodyLimitFor`: past it, 413 in the caller's dialect), the request's
 * headers are node's own object, a whole answer is one write with its length, and an event stream is written
 * chunk by chunk as the handler yields them. The call's signal aborts when the client leaves.
 */
export function serveApi(handler: ApiHandler, options: { maxBodyBytes?: number } = {}) {
  // A fixed limit (tests) applies to every path; else each path's own (an audio upload's is larger than JSON's).
  const limitFor = (path: string) => options.maxBodyBytes ?? apiBodyLimitFor(path);
  return (incoming: IncomingMessage, outgoing: ServerResponse): void => {
    void serveOne(incoming, outgoing).catch((error: unknown) => {
      log.error({ err: error }, "could not write an answer");
      outgoing.destroy();
    });
  };

  async function serveOne(incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
    const controller = new AbortController();
    // Cut at the shutdown deadline if still running then (recorded as interrupted).
    const untrack = trackInFlight(controller);
    outgoing.on("close", () => {
      untrack();
      if (!outgoing.writableFinished) controller.abort();
    });
    // A stopping server asks keep-alive clients to go elsewhere for their next call.
    if (isDraining()) outgoing.setHeader("connection", "close");
    const method = incoming.method ?? "GET";
    const path = pathOf(incoming.url ?? "/");
    let body: Buffer | null = null;
    let upload: ApiRequest["upload"];
    const maxBodyBytes = limitFor(path);
    if (streamsUpload(method, path, incoming.headers["content-type"])) {
      if (declaredTooLarge(incoming.headers["content-length"], maxBodyBytes))
        return dropAndRefuse(incoming, outgoing, maxBodyBytes, refuseTooLarge(path, maxBodyBytes));
      // An upload is read by the handler as it parses it; stopping early must not destroy the socket (the
      // caller still reads the answer), so the iterator leaves the stream open.
      // Made when the handler starts reading: an upload it never reads (a bad key) is drained below instead.
      upload = {
        chunks: { [Symbol.asyncIterator]: () => incoming.iterator({ destroyOnReturn: false }) },
        maxBytes: maxBodyBytes,
      };
    } else if (method !== "GET" && method !== "HEAD") {
      try {
        body = await readBody(incoming, maxBodyBytes);
      } catch {
        // The client went away mid-upload: nobody is left to answer.
        return void incoming.socket.destroy();
      }
      if (body === null)
        return dropAndRefuse(incoming, outgoing, maxBodyBytes, refuseTooLarge(path, maxBodyBytes));
    }
    let answer: ApiAnswer;
    try {
      const query = method === "GET" ? queryOf(incoming.url ?? "") : "";
      answer = await handler({
        method,
        path,
        query,
        headers: incoming.headers,
        body,
        ...(upload ? { upload } : {}),
        signal: controller.signal,
      });
    } catch (error) {
      // A handler that throws must not take the server down with it.
      log.error({ err: error }, "handler failed");
      answer = jsonAnswer(500, { error: { message: "internal error", type: "server_error" } });
    }
    // An upload refused part way is not read to its end: what is left drains (within a bound) so the caller
    // reads the answer instead of a reset.
    if (upload && !incoming.readableEnded) return dropAndRefuse(incoming, outgoing, maxBodyBytes, answer);
    await write(outgoing, answer);
  }
}

/** Writes an answer: a whole body in one write with its length; a stream's chunks as they come. */
async function write(outgoing: ServerResponse, answer: ApiAnswer): Promise<void> {
  const { status, headers, body } = answer;
  if (body === null || typeof body === "string" || body instanceof Uint8Array) {
    const text = body ?? "";
    headers["content-length"] = String(typeof text === "string" ? Buffer.byteLength(text) : text.byteLength);
    outgoing.writeHead(status, headers);
    outgoing.end(text);
    return;
  }
  outgoing.writeHead(status, headers);
  // Every chunk is read, also once the client has gone: the handler records the call when its stream ends.
  for await (const chunk of body) {
    if (outgoing.destroyed) continue;
    if (!outgoing.write(chunk)) await drained(outgoing);
  }
  if (!outgoing.destroyed) outgoing.end();
}

/** Resolves when the socket can take more, or has closed. */
const drained = (outgoing: ServerResponse) =>
  new Promise<void>((resolve) => {
    const done = () => {
      outgoing.off("drain", done).off("close", done);
      resolve();
    };
    outgoing.on("drain", done).on("close", done);
  });
