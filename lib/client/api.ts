// The browser's one way to call the app's own routes. Browser-safe: nothing here may import server code (the
// import of lib/core/errors is type-only, erased at build time).
import type { ErrorBody, FieldErrors } from "@/lib/core/errors/app-error";

type ErrorDetail = ErrorBody["error"];

/**
 * A failed call to one of our routes: its HTTP status (0 when the network failed or the answer never came) and
 * what the server's error body said: the message, its code, the messages per field (422, some 409s) and the
 * request id to quote to an operator; `reason` tells apart two answers of one status (some 409s).
 */
export class ApiError extends Error {
  readonly code?: string;
  readonly reason?: string;
  readonly fields: FieldErrors;
  readonly requestId?: string;

  constructor(
    readonly status: number,
    message: string,
    detail: { code?: string; reason?: string; fields?: FieldErrors; requestId?: string } = {},
  ) {
    super(message);
    this.name = "ApiError";
    this.code = detail.code;
    this.reason = detail.reason;
    this.fields = detail.fields ?? {};
    this.requestId = detail.requestId;
  }
}

/** Whether a call ended because its AbortSignal fired (a superseded load, Stop): not a failure to show. */
export const isAbort = (error: unknown): boolean =>
  error instanceof DOMException && error.code === DOMException.ABORT_ERR;

/** Any thrown value as an ApiError: ours as they are, anything else as a network failure (status 0). */
export const toApiError = (error: unknown): ApiError =>
  error instanceof ApiError ? error : new ApiError(0, error instanceof Error ? error.message : String(error));

const text = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/** A non-2xx answer as an ApiError, from the `{error: {code, message, fields?, requestId}}` body when it has one. */
export async function errorFromResponse(res: Response): Promise<ApiError> {
  const body: unknown = await res.json().catch(() => null);
  const error: Partial<Record<keyof ErrorDetail, unknown>> | null =
    body && typeof body === "object" && "error" in body && body.error && typeof body.error === "object"
      ? body.error
      : null;
  const fields =
    error?.fields && typeof error.fields === "object" ? (error.fields as FieldErrors) : undefined;
  return new ApiError(res.status, text(error?.message) ?? `${res.status} ${res.statusText}`, {
    code: text(error?.code),
    reason: text(error?.reason),
    fields,
    requestId: text(error?.requestId),
  });
}

/**
 * One call: JSON in (`body`, sent as `application/json`, which the CSRF check requires of every request with a
 * body) and JSON out (undefined for an empty answer). A non-2xx answer or a network failure is thrown as an
 * ApiError, an abort as itself.
 */
async function request<T>(
  method: string,
  url: string,
  init: { body?: unknown; signal?: AbortSignal } = {},
): Promise<T> {
  const hasBody = init.body !== undefined;
  const res = await fetch(url, {
    method,
    signal: init.signal,
    headers: { accept: "application/json", ...(hasBody ? { "content-type": "application/json" } : {}) },
    body: hasBody ? JSON.stringify(init.body) : undefined,
  }).catch((cause: unknown) => {
    if (isAbort(cause)) throw cause;
    throw toApiError(cause);
  });
  if (!res.ok) throw await errorFromResponse(res);
  const answer = await res.text();
  return (answer ? JSON.parse(answer) : undefined) as T;
}

/** GETs a JSON route. */
export const fetchJson = <T>(url: string, signal?: AbortSignal): Promise<T> =>
  request<T>("GET", url, { signal });

/** Sends a state-changing request (POST, PUT, PATCH, DELETE), with a JSON body when given. */
export const sendJson = <T = unknown>(method: string, url: string, body?: unknown): Promise<T> =>
  request<T>(method, url, { body });

/** T as the browser receives it: JSON turns every Date into its ISO string. */
export type Json<T> = T extends Date
  ? string
  : T extends readonly (infer Item)[]
    ? Json<Item>[]
    : T extends object
      ? { [K in keyof T]: Json<T[K]> }
      : T;

/** A path with one id in it, the id URL-encoded: `pathTo("/api/keys/:id", id)`. */
export const pathTo = (template: string, id: string): string =>
  template.replace(":id", encodeURIComponent(id));
