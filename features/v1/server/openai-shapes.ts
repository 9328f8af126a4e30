import { type ApiAnswer, jsonAnswer } from "@/lib/http/exchange";
import { CALL_ERROR_STATUS, type CallError, type CallErrorClass } from "@/lib/pipeline/errors";

/** OpenAI's error body, which every OpenAI client knows how to read. */
export function openAIError(
  status: number,
  message: string,
  code: string | null = null,
  param: string | null = null,
  errorType?: string,
  headers: Record<string, string> = {},
): ApiAnswer {
  const type =
    errorType ??
    (status === 401
      ? "invalid_request_error"
      : status === 429
        ? "rate_limit_error"
        : status >= 500
          ? "server_error"
          : "invalid_request_error");
  return jsonAnswer(status, { error: { message, type, param, code } }, headers);
}

/** OpenAI's error types for the refusals its clients treat specially (the others take the status's type). */
const OPENAI_ERROR_TYPE: Partial<Record<CallErrorClass, string>> = {
  budget_exceeded: "insufficient_quota",
  budget_unpriced_model: "insufficient_quota",
  run_budget_exceeded: "insufficient_quota",
  rate_limit_exceeded: "rate_limit_error",
  limits_unavailable: "rate_limit_error",
};

/** Refusals that do not come back in seconds (a spent budget, a run at its ceiling): `x-should-retry: false`. */
export const NO_RETRY: ReadonlySet<CallErrorClass> = new Set([
  "budget_exceeded",
  "budget_unpriced_model",
  "run_budget_exceeded",
]);

/** The answer to a call that failed before its first token: its status from the one table, OpenAI's body. */
export function callErrorResponse(error: CallError, headers: Record<string, string>): ApiAnswer {
  if (error.retryAfterSeconds !== undefined) headers["retry-after"] = String(error.retryAfterSeconds);
  // A spent budget does not come back in seconds: OpenAI's clients must not sit retrying it.
  if (NO_RETRY.has(error.class)) headers["x-should-retry"] = "false";
  return openAIError(
    CALL_ERROR_STATUS[error.class],
    error.message,
    error.class,
    error.param ?? null,
    OPENAI_ERROR_TYPE[error.class],
    headers,
  );
}
