import { type ApiAnswer, jsonAnswer } from "@/lib/http/exchange";
import type { CallError } from "@/lib/pipeline/errors";
import { CALL_ERROR_STATUS } from "@/lib/pipeline/errors";
import { callErrorResponse, NO_RETRY, openAIError } from "./openai-shapes";

/** How /v1 speaks to a caller: OpenAI's error bodies, or Anthropic's on /v1/messages. */
export type Dialect = {
  name: "openai" | "anthropic";
  error(status: number, message: string, code: string | null, param?: string | null): ApiAnswer;
  /** A call's failure before its first byte; `headers` (the call's own) go with it. */
  callError(error: CallError, headers: Record<string, string>): ApiAnswer;
  /** An error written into a stream that had started, in the caller's framing. */
  streamError(error: CallError): string;
};

export const OPENAI: Dialect = {
  name: "openai",
  error: (status, message, code, param = null) => openAIError(status, message, code, param),
  callError: callErrorResponse,
  streamError: (error) =>
    `data: ${JSON.stringify({ error: { message: error.message, type: "server_error", code: error.class, param: null } })}\n\n`,
};

/** Anthropic's error type for a status, as its SDK maps them back to its error classes. */
function anthropicType(status: number): string {
  if (status === 400) return "invalid_request_error";
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 413) return "request_too_large";
  if (status === 429) return "rate_limit_error";
  if (status === 529 || status === 503) return "overloaded_error";
  return status < 500 ? "invalid_request_error" : "api_error";
}

const anthropicError = (status: number, message: string, headers: Record<string, string> = {}) =>
  jsonAnswer(status, { type: "error", error: { type: anthropicType(status), message } }, headers);

export const ANTHROPIC: Dialect = {
  name: "anthropic",
  error: (status, message) => anthropicError(status, message),
  callError(error, headers) {
    if (error.retryAfterSeconds !== undefined) headers["retry-after"] = String(error.retryAfterSeconds);
    if (NO_RETRY.has(error.class)) headers["x-should-retry"] = "false";
    return anthropicError(CALL_ERROR_STATUS[error.class], error.message, headers);
  },
  streamError: (error) =>
    `event: error\ndata: ${JSON.stringify({ type: "error", error: { type: error.class === "rate_limited" ? "rate_limit_error" : "api_error", message: error.message } })}\n\n`,
};
