import type { WireRequest } from "@/lib/gateway/forward/plan";
import type { Gateway } from "@/lib/gateway/gateway";
import { type ChatRequest, type Stamp, type StreamEvent, ZERO_USAGE } from "@/lib/gateway/types";
import type { GuardrailOutcome, GuardrailPolicy } from "@/lib/guardrails/types";
import type { GuardrailCode } from "@/lib/turns/events";
import type { TurnSource } from "@/lib/turns/observer";
import { CALL_ERROR_STATUS, type CallError, type PipelineRefusal } from "./errors";
import type { Caller, Policy } from "./policy";

/**
 * What the pipeline streams: the gateway's events (an error may also be one of the pipeline's refusals), plus its
 * own guardrail decisions (warnings and refusals).
 */
export type PipelineEvent =
  | Exclude<StreamEvent, { type: "error" }>
  | { type: "error"; error: CallError; stamp: Stamp }
  | {
      type: "guardrail";
      code: GuardrailCode;
      message: string;
      blocking: boolean;
      /** A guardrail rule's stage: its `x-tollgate-guardrail` header entry, and what the stage made of the call. */
      header?: string;
      outcome?: GuardrailOutcome;
    }
  | RateLimitState;

/** One window of a rate limit as the caller sees it (OpenAI's x-ratelimit-* headers): the tightest that applies. */
export type RateLimitWindow = { limit: number; remaining: number; resetSeconds: number };

/**
 * The rate limits that applied to a call, yielded by the rate-limit step before the answer (when any applies),
 * for /v1's `x-ratelimit-{limit,remaining,reset}-{requests,tokens}` headers.
 */
export type RateLimitState = {
  type: "rate_limit_state";
  requests?: RateLimitWindow;
  tokens?: RateLimitWindow;
  /** What the call's run has left under its ceilings (the run-ceiling step): `x-tollgate-run-remaining-*`. */
  run?: RunRemaining;
};

/**
 * What a run has left under the tightest of its ceilings of each measure, after this call's reservation (its
 * worst case): USD (a decimal string), calls, tokens, and whole seconds of wall time. A measure no ceiling sets is
 * absent.
 */
export type RunRemaining = { usd?: string; calls?: number; tokens?: number; seconds?: number };

/** One model call going through the pipeline. */
export type Call = {
  caller: Caller & { source: TurnSource };
  request: ChatRequest & { model: string };
  /** Stream from the provider (the drawer, `stream: true` on /v1), or one JSON answer. */
  stream: boolean;
  /** The caller asked not to use the cache (`Cache-Control: no-cache`). */
  noCache: boolean;
  policy: Policy;
  /** The tenant's guardrail rules, when the pipeline has guardrails (lib/pipeline/guardrails.ts). */
  guardrails?: GuardrailPolicy;
  gateway: Gateway;
  /**
   * A /v1 request in its caller's wire format, carried whole or translated by `Gateway.forward`. `request` then
   * holds what the steps read of it: the alias, a stand-in for its size, and its output ceiling.
   */
  wire?: Omit<WireRequest, "maxTokens" | "signal">;
};

export type Next = (call: Call) => AsyncGenerator<PipelineEvent>;
/**
 * A step wraps the rest of the pipeline: it may answer itself, refuse, or call `next` and watch its events.
 * `applies` says whether it has anything to do for a call (a step without it always runs); the pipeline leaves
 * out the steps that would only pass the call on, since each costs something for every event it passes along.
 */
export type Step = ((call: Call, next: Next) => AsyncGenerator<PipelineEvent>) & {
  applies?: (call: Call) => boolean;
  /** The step's name on its trace span (`tollgate.<label>`). */
  label?: string;
};

/** A step with its name (its trace span's). */
export const labelled = (label: string, step: Step): Step => Object.assign(step, { label });

export function emptyStamp(model: string): Stamp {
  return {
    requestedModel: model,
    servedProvider: null,
    servedAdapter: null,
    servedModel: null,
    fallbackIndex: null,
    attempts: [],
    usage: ZERO_USAGE,
    cost: "0",
    costStatus: "priced",
    timeToFirstTokenMs: null,
    latencyMs: 0,
    toolsDropped: false,
  };
}

/** A refusal: a blocking guardrail event (for the audit) and the error that ends the call. */
export function* refuse(
  call: Call,
  code: GuardrailCode,
  errorClass: PipelineRefusal,
  message: string,
  retryAfterSeconds: number,
): Generator<PipelineEvent> {
  yield { type: "guardrail", code, message, blocking: true };
  yield {
    type: "error",
    error: { class: errorClass, message, status: CALL_ERROR_STATUS[errorClass], retryAfterSeconds },
    stamp: emptyStamp(call.request.model),
  };
}

/** The end of a call's usage and cost, whether it ended in an answer or an error. */
export const stampOf = (event: PipelineEvent): Stamp | undefined =>
  event.type === "done" ? event.response.stamp : event.type === "error" ? event.stamp : undefined;
