import { describe, expect, it } from "vitest";
import { callErrorResponse } from "@/features/v1/server/openai-shapes";
import { AppError, ERROR_STATUS, type ErrorCode, toErrorResponse } from "@/lib/core/errors/app-error";
import { CALL_ERROR_STATUS, type CallErrorClass } from "@/lib/pipeline/errors";

/** What /v1 answered each failed call with before the table was one: status, OpenAI error type. */
const ANSWERS: Record<CallErrorClass, [number, string]> = {
  bad_request: [400, "invalid_request_error"],
  auth: [502, "server_error"],
  not_found: [502, "server_error"],
  rate_limited: [429, "rate_limit_error"],
  server: [502, "server_error"],
  timeout: [504, "server_error"],
  connection: [502, "server_error"],
  stream_interrupted: [502, "server_error"],
  aborted: [499, "invalid_request_error"],
  no_candidate: [503, "server_error"],
  unknown_model: [404, "invalid_request_error"],
  unsupported_parameter: [400, "invalid_request_error"],
  internal: [502, "server_error"],
  rate_limit_exceeded: [429, "rate_limit_error"],
  budget_exceeded: [429, "insufficient_quota"],
  budget_unpriced_model: [429, "insufficient_quota"],
  run_budget_exceeded: [429, "insufficient_quota"],
  limits_unavailable: [429, "rate_limit_error"],
  guardrail_blocked: [400, "invalid_request_error"],
  guardrails_unavailable: [503, "server_error"],
  policy_unavailable: [503, "server_error"],
};

describe("the status of a failed call", () => {
  it("has one entry for every class, gateway failures and pipeline refusals alike", () => {
    expect(Object.keys(CALL_ERROR_STATUS).sort()).toEqual(Object.keys(ANSWERS).sort());
  });

  it.each(Object.entries(ANSWERS))("/v1 answers %s as it always did", async (errorClass, [status, type]) => {
    const res = callErrorResponse(
      { class: errorClass as CallErrorClass, message: "it failed" },
      { "x-request-id": "r1" },
    );
    expect(res.status).toBe(status);
    expect(res.headers["x-request-id"]).toBe("r1");
    expect(JSON.parse(res.body as string)).toEqual({
      error: { message: "it failed", type, param: null, code: errorClass },
    });
  });

  it("tells OpenAI's clients when to retry a refusal, and never to retry a spent budget", () => {
    const limited = callErrorResponse(
      { class: "rate_limit_exceeded", message: "slow down", retryAfterSeconds: 12 },
      {},
    );
    expect(limited.headers["retry-after"]).toBe("12");
    expect(limited.headers["x-should-retry"]).toBeUndefined();
    const spent = callErrorResponse(
      { class: "budget_exceeded", message: "spent", retryAfterSeconds: 3600 },
      {},
    );
    expect(spent.headers["x-should-retry"]).toBe("false");
  });
});

describe("the status of the app's own errors", () => {
  const STATUSES: Record<ErrorCode, number> = {
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
  };

  it.each(Object.entries(STATUSES))("answers %s with %i", (code, status) => {
    expect(ERROR_STATUS[code as ErrorCode]).toBe(status);
    expect(toErrorResponse(new AppError(code as ErrorCode, "no"), "r2").status).toBe(status);
  });
});
