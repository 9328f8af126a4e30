import { ZodError } from "zod";
import { outageRefusal } from "./dependency";

/** The status of each of the app's own error codes (a failed model call's are in lib/pipeline/errors.ts). */
export const ERROR_STATUS = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  gone: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_failed: 422,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
} as const;
export type ErrorCode = keyof typeof ERROR_STATUS;

export type FieldErrors = Record<string, string[]>;

const APP_ERROR = Symbol.for("tollgate.AppError");

/**
 * The one error type of the app: a code (which fixes the HTTP status) and a message safe to show.
 * `instanceof` goes by a brand, not by the class: Next gives every bundle its own copy of this module, and the
 * container's objects (built in instrumentation's bundle) throw that copy's AppError into a route's catch.
 */
export class AppError extends Error {
  override name = "AppError";
  readonly [APP_ERROR] = true;
  static [Symbol.hasInstance](value: unknown): boolean {
    return (
      typeof value === "object" && value !== null && (value as { [APP_ERROR]?: unknown })[APP_ERROR] === true
    );
  }
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extra: { fields?: FieldErrors; retryAfterSeconds?: number; reason?: string } = {},
  ) {
    super(message);
  }
  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export const notFound = (what: string) => new AppError("not_found", `${what} not found`);
export const forbidden = (why = "you do not have access to this") => new AppError("forbidden", why);
export const unauthorized = () => new AppError("unauthorized", "sign in first");

export function fieldErrors(error: ZodError): FieldErrors {
  const fields: FieldErrors = {};
  for (const issue of error.issues) {
    const key = issue.path.length ? issue.path.join(".") : "(body)";
    fields[key] = [...(fields[key] ?? []), issue.message];
  }
  return fields;
}

export type ErrorBody = {
  /** `reason`: a finer code than `code` where a client must tell two answers of one status apart (some 409s). */
  error: { code: ErrorCode; message: string; fields?: FieldErrors; reason?: string; requestId: string };
};

/**
 * Turns any thrown value into the HTTP answer: our errors keep their code and message, zod failures become 422
 * with the fields, a dependency that is away (database, Redis) a 503 with Retry-After, anything else a generic 500
 * whose detail is only in the log (found by the request id).
 */
export function toErrorResponse(
  error: unknown,
  requestId: string,
): { status: number; body: ErrorBody; headers: Record<string, string> } {
  const headers: Record<string, string> = { "x-request-id": requestId };
  if (error instanceof AppError) {
    if (error.extra.retryAfterSeconds !== undefined)
      headers["retry-after"] = String(error.extra.retryAfterSeconds);
    return {
      status: error.status,
      headers,
      body: {
        error: {
          code: error.code,
          message: error.message,
          fields: error.extra.fields,
          ...(error.extra.reason ? { reason: error.extra.reason } : {}),
          requestId,
        },
      },
    };
  }
  if (error instanceof ZodError) {
    return {
      status: 422,
      headers,
      body: {
        error: {
          code: "validation_failed",
          message: "the request is invalid",
          fields: fieldErrors(error),
          requestId,
        },
      },
    };
  }
  const away = outageRefusal(error);
  if (away) {
    headers["retry-after"] = away.retryAfter;
    return {
      status: 503,
      headers,
      body: { error: { code: "unavailable", message: away.message, requestId } },
    };
  }
  return {
    status: 500,
    headers,
    body: { error: { code: "internal", message: `internal error (request id ${requestId})`, requestId } },
  };
}
