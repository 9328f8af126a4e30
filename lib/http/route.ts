import { v7 as uuidv7 } from "uuid";
import type { z } from "zod";
import { AppError, toErrorResponse } from "@/lib/core/errors/app-error";
import { log } from "@/lib/core/process/log";
import { appBodyLimits, BodyRefused, readBytesWithin, readJsonWithin, tooLarge } from "./limits";

export type RouteContext<P> = { params: P; requestId: string };
type NextSegment<P> = { params: Promise<P> };

/**
 * Wraps a route handler: gives it a request id and its params, and turns anything it throws into the one error
 * shape (our errors keep their status; unknown ones become a 500 whose detail stays in the log).
 */
export function route<P = Record<string, never>>(
  handler: (req: Request, ctx: RouteContext<P>) => Promise<Response>,
): (req: Request, segment: NextSegment<P>) => Promise<Response> {
  return async (req, segment) => {
    // Always our own id: a client's x-request-id is untrusted input (it could collide with, or forge, another
    // request's trail), so it is only logged beside ours.
    const requestId = uuidv7();
    const clientRequestId = req.headers.get("x-request-id")?.slice(0, 200) || undefined;
    try {
      const params = ((await segment?.params) ?? {}) as P;
      const res = await handler(req, { params, requestId });
      res.headers.set("x-request-id", requestId);
      return res;
    } catch (error) {
      const answer = toErrorResponse(error, requestId);
      const where = { requestId, clientRequestId, method: req.method, path: new URL(req.url).pathname };
      if (answer.status >= 500) log.error({ ...where, err: error }, "request failed");
      else log.info({ ...where, status: answer.status, code: answer.body.error.code }, "request refused");
      return Response.json(answer.body, { status: answer.status, headers: answer.headers });
    }
  };
}

/**
 * Reads a JSON body and validates it: 413 past the size limit (`MAX_APP_BODY_BYTES`, 1 MB), 400 when it is not
 * JSON or nests deeper than `MAX_JSON_DEPTH` (64), 422 naming the fields when it does not fit the schema.
 */
export async function readJson<S extends z.ZodType>(req: Request, schema: S): Promise<z.output<S>> {
  let body: unknown;
  try {
    body = await readJsonWithin(req, appBodyLimits());
  } catch (error) {
    if (!(error instanceof BodyRefused)) throw error;
    throw new AppError(error.status === 413 ? "payload_too_large" : "bad_request", error.message);
  }
  return schema.parse(body);
}

/**
 * Reads a multipart/form-data body (a file upload) within `maxBytes`: 415 when the body is not multipart, 413 past
 * the limit (by Content-Length before a byte is read, else as soon as the count passes it), 400 when it does not
 * parse. The caller takes its fields from the FormData.
 */
export async function readMultipart(req: Request, maxBytes: number): Promise<FormData> {
  const type = req.headers.get("content-type") ?? "";
  if (!/^multipart\/form-data\s*;\s*boundary=/i.test(type))
    throw new AppError(
      "unsupported_media_type",
      'send the file as multipart/form-data, in a field named "file"',
    );
  const bytes = await readBytesWithin(req, maxBytes);
  if (!bytes) throw new AppError("payload_too_large", tooLarge(maxBytes).message);
  try {
    // Node's buffers are plain ArrayBuffer-backed; the type says "any buffer".
    return await new Response(bytes as Uint8Array<ArrayBuffer>, {
      headers: { "content-type": type },
    }).formData();
  } catch {
    throw new AppError(
      "bad_request",
      "the body is not valid multipart/form-data (was the upload cut short?)",
    );
  }
}
