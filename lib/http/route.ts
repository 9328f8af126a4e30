import { v7 as uuidv7 } from "uuid";
import type { z } from "zod";
import { AppError, toErrorResponse } from "@/lib/errors";
import { log } from "@/lib/log";

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
    const requestId = req.headers.get("x-request-id") ?? uuidv7();
    try {
      const params = ((await segment?.params) ?? {}) as P;
      const res = await handler(req, { params, requestId });
      res.headers.set("x-request-id", requestId);
      return res;
    } catch (error) {
      const answer = toErrorResponse(error, requestId);
      const where = { requestId, method: req.method, path: new URL(req.url).pathname };
      if (answer.status >= 500) log.error({ ...where, err: error }, "request failed");
      else log.info({ ...where, status: answer.status, code: answer.body.error.code }, "request refused");
      return Response.json(answer.body, { status: answer.status, headers: answer.headers });
    }
  };
}

/** Reads a JSON body and validates it: 400 when it is not JSON, 422 naming the fields when it does not fit. */
export async function readJson<S extends z.ZodType>(req: Request, schema: S): Promise<z.output<S>> {
  let body: unknown;
  try {
    body = await req.json();
  } catch {
    throw new AppError("bad_request", "the request body must be JSON");
  }
  return schema.parse(body);
}
