import type { GatewayErrorClass } from "@/lib/gateway/types";

/** The pipeline's own refusals, decided before any provider is asked. */
export type PipelineRefusal =
  | "rate_limit_exceeded"
  | "budget_exceeded"
  | "budget_unpriced_model"
  /** A run ceiling (USD, calls, tokens or wall time of one run id) would be passed: lib/pipeline/run-ceiling.ts. */
  | "run_budget_exceeded"
  /** A hard limit's counters cannot be reached and this instance's leased allowance is spent: fail closed. */
  | "limits_unavailable"
  /** A tenant's guardrail rule blocked the request or the answer (or its check could not run and it fails closed). */
  | "guardrail_blocked"
  /** The tenant's guardrail policy could not be read: the call is refused rather than let through unchecked. */
  | "guardrails_unavailable"
  /** The call's limits and budgets could not be read (and none this process read lately can stand in): refused. */
  | "policy_unavailable";

/** Every way a model call can fail: the gateway's classes and the pipeline's refusals. */
export type CallErrorClass = GatewayErrorClass | PipelineRefusal;

/** A call's failure as the pipeline streams it. */
export type CallError = {
  class: CallErrorClass;
  message: string;
  /** The provider's status, or the refusal's. */
  status?: number;
  retryAfterSeconds?: number;
  /** The request field at fault (unsupported_parameter). */
  param?: string;
  /** A stream's provider error event already reached the caller (pass-through): nothing more to write. */
  relayed?: boolean;
};

/**
 * The one table of the HTTP status a failed call answers with. Exhaustive, so a new class without a status does
 * not compile. A provider's auth or not-found failure is our 502: the provider's key and model are ours, not the
 * caller's.
 */
export const CALL_ERROR_STATUS = {
  bad_request: 400,
  auth: 502,
  not_found: 502,
  rate_limited: 429,
  server: 502,
  timeout: 504,
  connection: 502,
  stream_interrupted: 502,
  aborted: 499,
  no_candidate: 503,
  unknown_model: 404,
  unsupported_parameter: 400,
  internal: 502,
  rate_limit_exceeded: 429,
  budget_exceeded: 429,
  budget_unpriced_model: 429,
  run_budget_exceeded: 429,
  limits_unavailable: 429,
  guardrail_blocked: 400,
  guardrails_unavailable: 503,
  policy_unavailable: 503,
} as const satisfies Record<CallErrorClass, number>;
