import "server-only";
import {
  APIConnectionError as AnthropicConnectionError,
  APIConnectionTimeoutError as AnthropicConnectionTimeout,
} from "@anthropic-ai/sdk";
import {
  APIConnectionError as OpenAIConnectionError,
  APIConnectionTimeoutError as OpenAIConnectionTimeout,
} from "openai";
import { contentFilterOfError } from "./forward/formats";
import type { GatewayErrorClass, Stamp } from "./types";

const GATEWAY_ERROR = Symbol.for("tollgate.GatewayError");

/**
 * A gateway failure, with its class (which decides retry and fallback) and the stamp of what was tried.
 * `instanceof` goes by a brand, so it holds across the copies of this module Next gives each bundle.
 */
export class GatewayError extends Error {
  override name = "GatewayError";
  readonly [GATEWAY_ERROR] = true;
  static [Symbol.hasInstance](value: unknown): boolean {
    return (
      typeof value === "object" &&
      value !== null &&
      (value as { [GATEWAY_ERROR]?: unknown })[GATEWAY_ERROR] === true
    );
  }
  constructor(
    readonly errorClass: GatewayErrorClass,
    message: string,
    readonly status?: number,
    public stamp?: Stamp,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
  /** The request field at fault, for `unsupported_parameter`. */
  param?: string;
  /** What the provider's content filter filtered, when that is why it refused (Azure OpenAI's 400). */
  contentFilter?: string[];
}

/** A stream that ended without its final event: the connection was cut mid-answer. */
export const streamCut = () =>
  new GatewayError("connection", "the provider's stream ended before the answer was complete");

/** Why an attempt's own timer fired; used as the abort reason so the classifier can tell it from Stop. */
export class AttemptTimeout extends Error {
  override name = "AttemptTimeout";
  constructor(
    readonly phase: "connect" | "first_token" | "idle" | "total",
    readonly ms: number,
  ) {
    super(`${TIMEOUT_TEXT[phase]} within ${ms} ms`);
  }
}

const TIMEOUT_TEXT = {
  connect: "the provider did not start answering",
  first_token: "no first token",
  idle: "the stream stalled: no new token",
  total: "no complete answer",
};

export type Classified = {
  errorClass: GatewayErrorClass;
  status?: number;
  message: string;
  retryAfterMs?: number;
  /** The provider refused because its content filter filtered the prompt (Azure OpenAI). */
  contentFilter?: string[];
};

/** What the router does next with a classified failure. */
export function decide(errorClass: GatewayErrorClass): "retry" | "next" | "fail" {
  switch (errorClass) {
    case "rate_limited":
    case "server":
    case "timeout":
    case "connection":
      return "retry";
    case "auth":
    case "not_found":
    case "unsupported_parameter":
      return "next";
    default:
      return "fail";
  }
}

/** Failures that count against a deployment's health (the request's own faults and Stop do not). */
export const countsAgainstDeployment = (c: GatewayErrorClass) =>
  c === "rate_limited" ||
  c === "server" ||
  c === "timeout" ||
  c === "connection" ||
  c === "auth" ||
  c === "not_found";

/** How a provider's HTTP status is read (what our API answers a failed call with is lib/pipeline/errors.ts). */
export function classForStatus(status: number): GatewayErrorClass {
  if (status === 400 || status === 422) return "bad_request";
  if (status === 401 || status === 403) return "auth";
  if (status === 404) return "not_found";
  if (status === 408) return "timeout";
  if (status === 429) return "rate_limited";
  if (status >= 500) return "server";
  return "bad_request";
}

type SdkLikeError = Error & {
  status?: number;
  headers?: Headers | Record<string, string | null | undefined>;
  error?: { message?: string; error?: { message?: string } };
  cause?: unknown;
};

/**
 * Classifies anything an adapter threw. `attemptSignal` tells our own timeouts and the caller's Stop apart from
 * the SDKs' generic "request aborted" errors.
 */
export function classify(error: unknown, attemptSignal: AbortSignal, callerSignal?: AbortSignal): Classified {
  if (callerSignal?.aborted) return { errorClass: "aborted", message: "the request was stopped" };
  if (attemptSignal.aborted && attemptSignal.reason instanceof AttemptTimeout) {
    return { errorClass: "timeout", message: attemptSignal.reason.message };
  }
  // Ours, or wrapped by an SDK in its own error (what its key function threw: the Entra ID token source's).
  const ours = inCauses(error, (e) => (e instanceof GatewayError ? e : undefined));
  if (ours) {
    return {
      errorClass: ours.errorClass,
      status: ours.status,
      message: ours.message,
      retryAfterMs: ours.retryAfterMs,
    };
  }
  const e = error as SdkLikeError;
  if (typeof e?.status === "number" && e.status > 0) {
    const filtered = e.status === 400 ? contentFilterOfError(e.error) : undefined;
    const google = googleDetails(e.error);
    return {
      // Google answers a key it does not know with 400 API_KEY_INVALID: the key's fault, not the request's.
      errorClass: google.keyInvalid ? "auth" : classForStatus(e.status),
      status: e.status,
      message: providerMessage(e),
      retryAfterMs: retryAfterMs(e.headers) ?? google.retryAfterMs,
      ...(filtered ? { contentFilter: filtered } : {}),
    };
  }
  // By `instanceof` and error codes only: the production bundle minifies class names.
  if (error instanceof OpenAIConnectionTimeout || error instanceof AnthropicConnectionTimeout)
    return { errorClass: "timeout", message: e.message || "timed out" };
  const code = networkCode(error);
  if (code && TIMEOUT_CODES.test(code))
    return { errorClass: "timeout", message: withCode(e?.message || "timed out", code) };
  if (error instanceof OpenAIConnectionError || error instanceof AnthropicConnectionError || code) {
    return { errorClass: "connection", message: withCode(e?.message || "connection failed", code) };
  }
  return { errorClass: "internal", message: e instanceof Error ? e.message : String(error) };
}

/** The first of the error and its `cause` chain (a few deep) that `pick` finds something in. */
function inCauses<T>(error: unknown, pick: (e: object) => T | undefined): T | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current && typeof current === "object"; depth++) {
    const found = pick(current);
    if (found !== undefined) return found;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

// Node's socket errors and undici's, which say the connection (not the request) failed.
const NETWORK_CODES =
  /^(ECONN\w*|EPIPE|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|EHOSTDOWN|ENETUNREACH|ENETDOWN|UND_ERR_\w+|ERR_STREAM_PREMATURE_CLOSE|ERR_SOCKET_\w+|ERR_HTTP2_\w+)$/;
const TIMEOUT_CODES = /^(ETIMEDOUT|UND_ERR_(CONNECT|HEADERS|BODY)_TIMEOUT|ERR_SOCKET_CONNECTION_TIMEOUT)$/;

/** The first network error code on the error or down its `cause` chain (the SDKs and fetch wrap the socket's). */
export function networkCode(error: unknown): string | undefined {
  return inCauses(error, (e) => {
    const code = (e as { code?: unknown }).code;
    return typeof code === "string" && NETWORK_CODES.test(code) ? code : undefined;
  });
}

const withCode = (message: string, code: string | undefined) =>
  code && !message.includes(code) ? `${message} (${code})` : message;

/**
 * What Google's error details (`error.details[]`, google.rpc types) say: a key it does not know (ErrorInfo
 * API_KEY_INVALID), and how long to wait (RetryInfo `retryDelay`, "37s": Gemini sends no Retry-After header).
 */
function googleDetails(body: unknown): { keyInvalid: boolean; retryAfterMs?: number } {
  const details = (body as { error?: { details?: unknown } } | undefined)?.error?.details;
  if (!Array.isArray(details)) return { keyInvalid: false };
  let keyInvalid = false;
  let retryAfterMs: number | undefined;
  for (const d of details as { "@type"?: unknown; reason?: unknown; retryDelay?: unknown }[]) {
    if (d?.reason === "API_KEY_INVALID") keyInvalid = true;
    const delay = typeof d?.retryDelay === "string" ? /^(\d+(?:\.\d+)?)s$/.exec(d.retryDelay) : null;
    if (delay) retryAfterMs = Math.round(Number(delay[1]) * 1000);
  }
  return { keyInvalid, retryAfterMs };
}

function providerMessage(e: SdkLikeError): string {
  const body = e.error;
  return body?.error?.message ?? body?.message ?? e.message ?? "provider error";
}

/** Reads Retry-After (seconds or an HTTP date) or retry-after-ms from response headers. */
export function retryAfterMs(headers: SdkLikeError["headers"], now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const get = (name: string) =>
    headers instanceof Headers
      ? headers.get(name)
      : ((headers as Record<string, string | null | undefined>)[name] ?? null);
  const ms = get("retry-after-ms");
  if (ms && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = get("retry-after");
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.max(0, Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
