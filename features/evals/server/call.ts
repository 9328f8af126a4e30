import "server-only";
import type { ChatMessage, ToolSchema } from "@/lib/gateway/types";
import { type MeteredCallDeps, type MeteredCallResult, meteredCall } from "@/lib/pipeline/metered-call";
import type { TurnPrompt } from "@/lib/turns/observer";

export type EvalCallDeps = MeteredCallDeps;
/** Whose call it is: the run's tenant, its creator, and the API key it was started with (if any). */
export type EvalCaller = { tenantId: string; userId: string; apiKeyId: string | null };
export type EvalCallResult = MeteredCallResult;

/** The pipeline's refusals that stop a whole run: the tenant's hard budget is spent (or cannot be priced). */
export const BUDGET_CLASSES = new Set(["budget_exceeded", "budget_unpriced_model"]);

/**
 * One model call of an evaluation run (a target's answer, or a judge's verdict): a metered call with source
 * `eval` (budgets and rate limits apply), with its ledger row and audit trail.
 */
export const evalCall = (
  deps: EvalCallDeps,
  who: EvalCaller,
  request: {
    model: string;
    messages: ChatMessage[];
    temperature?: number;
    maxTokens?: number;
    tools?: ToolSchema[];
  },
  options: { prompt?: TurnPrompt; signal?: AbortSignal } = {},
): Promise<EvalCallResult> => meteredCall(deps, { ...who, source: "eval" }, request, options);
