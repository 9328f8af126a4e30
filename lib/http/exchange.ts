import { declaredTooLarge, readBytesWithin, streamsUpload } from "@/lib/http/limits";

/**
 * /v1 without a transport: what the handler reads of a request and what it answers, in plain values. The lean
 * server (server/serve.ts) fills and writes these straight from node:http, with no Web `Request`, `Response`
 * or `Headers` built for a call; Next's route goes through `webHandler`, below.
 */
export type ApiRequest = {
  method: string;
  /** The path, without its query string or trailing slashes. */
  path: string;
  /** The query string without its "?" (empty when none); read only by the GET endpoints that take one. */
  query?: string;
  /** Lower-case names, as node:http gives them. */
  headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The body, read whole within the size limit (null: none, or an upload, below). */
  body: Uint8Array | null;
  /**
   * A multipart upload's body, not read yet (`body` is then null): the handler reads it as it parses it, within
   * `maxBytes`, once the key is known, so an upload is never held whole in memory (see `streamsUpload`).
   */
  upload?: { chunks: AsyncIterable<Uint8Array>; maxBytes: number };
  /** Aborted when the caller goes away. */
  signal: AbortSignal;
};

export type ApiAnswer = {
  status: number;
  /** Lower-case names; a header given twice is one value joined with ", " (as `Headers` reads it). */
  headers: Record<string, string>;
  /** The whole body (bytes: a binary answer, such as speech's audio), or an event stream's chunks as they come. */
  body: string | Uint8Array | AsyncIterable<string> | null;
};

export type ApiHandler = (req: ApiRequest) => Promise<ApiAnswer>;

/** One header's value (a repeated header joined with ", "), or undefined. */
export function headerOf(req: Pick<ApiRequest, "headers">, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(", ") : value;
}

/** A JSON answer. */
export const jsonAnswer = (
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): ApiAnswer => ({
  status,
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify(value),
});

/** Adds a value to a header (joined with ", ", as `Headers.append` does). */
export function appendHeader(headers: Record<string, string>, name: string, value: string): void {
  headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
}

/** The query string of a URL, without its "?". */
export const queryOf = (url: string): string => {
  const q = url.indexOf("?");
  return q < 0 ? "" : url.slice(q + 1);
};

/** The path of a URL as ApiRequest carries it. */
export const pathOf = (url: string): string => {
  const q = url.indexOf("?");
  return (q < 0 ? url : url.slice(0, q)).replace(/\/+$/, "");
};

/**
 * The handler as `(Request) => Response`, for Next's route and for tests: the body is read up to `maxBytes`
 * (past it, `tooLarge(path)` answers, and the rest is left unread: under Next, cancelling the stream destroys the
 * socket before the answer can be sent).
 */
export function webHandler(
  handler: ApiHandler,
  options: { maxBytes: (path: string) => number; tooLarge: (path: string, maxBytes: number) => ApiAnswer },
): (req: Request) => Promise<Response> {
  return async (req) => {
    const url = new URL(req.url);
    const path = pathOf(url.pathname);
    let body: Uint8Array | null = null;
    let upload: ApiRequest["upload"];
    if (req.method !== "GET" && req.method !== "HEAD") {
      const maxBytes = options.maxBytes(path);
      if (streamsUpload(req.method, path, req.headers.get("content-type"))) {
        if (declaredTooLarge(req.headers.get("content-length"), maxBytes))
          return toResponse(options.tooLarge(path, maxBytes));
        // Left unread past a refusal, not cancelled (cancelling would destroy the socket before the answer).
        if (req.body) upload = { chunks: unread(req.body), maxBytes };
      } else {
        body = await readBytesWithin(req, maxBytes);
        if (!body) return toResponse(options.tooLarge(path, maxBytes));
      }
    }
    const headers: Record<string, string> = {};
    req.headers.forEach((value, name) => {
      headers[name] = value;
    });
    const query = url.search.slice(1);
    return toResponse(
      await handler({
        method: req.method,
        path,
        query,
        headers,
        body,
        ...(upload ? { upload } : {}),
        signal: req.signal,
      }),
    );
  };
}

/** A stream's chunks; stopping early releases it without cancelling it. */
async function* unread(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

/** A Web `Response` of an answer (an event stream stays a stream). */
export function toResponse(answer: ApiAnswer): Response {
  const init = { status: answer.status, headers: answer.headers };
  if (answer.body === null || typeof answer.body === "string") return new Response(answer.body, init);
  if (answer.body instanceof Uint8Array) return new Response(answer.body as Uint8Array<ArrayBuffer>, init);
  const chunks = answer.body[Symbol.asyncIterator]();
  const encoder = new TextEncoder();
  return new Response(
    new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await chunks.next();
        if (done) controller.close();
        else controller.enqueue(encoder.encode(value));
      },
      async cancel() {
        await chunks.return?.();
      },
    }),
    init,
  );
}
