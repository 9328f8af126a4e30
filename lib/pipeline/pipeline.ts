import "server-only";
import type { Database } from "@/db";
import { countFailure } from "@/lib/core/errors/failures";
import { log } from "@/lib/core/process/log";
import { tracing } from "@/lib/core/process/trace";
import { GatewayError } from "@/lib/gateway/errors";
import type { Gateway } from "@/lib/gateway/gateway";
import type { ChatRequest } from "@/lib/gateway/types";
import type { GuardrailEngine } from "@/lib/guardrails/engine";
import type { GuardrailPolicy } from "@/lib/guardrails/types";
import { assumedPriceStep } from "./assumed-prices";
import { budgetStep } from "./budget";
import { cacheStep } from "./cache";
import type { ResponseCacheStore } from "./cache-store";
import type { CounterStore } from "./counters";
import { guardrailStep, redactedForAudit } from "./guardrails";
import { type Caller, loadPolicy, type Policy } from "./policy";
import { rateLimitStep } from "./rate-limit";
import { runCeilingStep } from "./run-ceiling";
import { tracedStep } from "./traced-step";
import { type Call, emptyStamp, labelled, type Next, type PipelineEvent, type Step } from "./types";

export type PipelineDeps = {
  db: () => Promise<Database>;
  gateway: () => Gateway;
  counters: () => CounterStore;
  cache: () => ResponseCacheStore;
  /** The clock of the rate-limit and budget windows (tests pin it). */
  now?: () => number;
  /** A tenant's guardrail policy and the engine that applies it; without them no guardrail step runs. */
  guardrails?: { policy: (tenantId: string) => Promise<GuardrailPolicy>; engine: GuardrailEngine };
};

/** The last step: the gateway itself, streamed or as one JSON answer, as events either way. */
const inference: Next = async function* (call) {
  if (call.wire)
    return yield* call.gateway.forward({
      format: call.wire.format,
      alias: call.wire.alias,
      body: call.wire.body,
      stream: call.wire.stream,
      headers: call.wire.headers,
      ...(call.wire.multipart ? { multipart: call.wire.multipart } : {}),
      maxTokens: call.request.maxTokens,
      signal: call.request.signal,
    });
  if (call.stream) return yield* call.gateway.stream(call.request);
  try {
    yield { type: "done", response: await call.gateway.chat(call.request) };
  } catch (error) {
    const e = error instanceof GatewayError ? error : new GatewayError("internal", String(error));
    yield {
      type: "error",
      error: { class: e.errorClass, message: e.message, status: e.status },
      stamp: e.stamp ?? emptyStamp(call.request.model),
    };
  }
};

/**
 * The request pipeline every model call goes through, from /v1 and from the drawer alike:
 * cache → rate limit → budget guardrail → assumed prices → the gateway. The ledger and audit (the governance recorder) wrap the
 * whole turn around it and record the guardrail events it yields. Each step is a small module of its own.
 */
export class Pipeline {
  private readonly steps: Step[];
  private readonly requestRate: Step;
  private readonly toolCallRun: Step;
  constructor(
    private readonly deps: PipelineDeps,
    steps: Step[] = [
      // Outermost: a request is checked (and redacted) before the cache is asked, and a cached answer is checked too.
      ...(deps.guardrails ? [labelled("guardrails", guardrailStep(deps.guardrails.engine))] : []),
      labelled("cache", cacheStep(deps.cache)),
      labelled("rate_limit", rateLimitStep(deps.counters, deps.now)),
      labelled("budget", budgetStep(deps.counters, deps.now)),
      // Inside the budget step (which may cap max_tokens), outside assumed prices (so it settles their cost).
      labelled("run_ceiling", runCeilingStep(deps)),
      // Inside the budget step, so the budget settles what the tenant's assumed price makes of the call.
      labelled("assumed_price", assumedPriceStep()),
    ],
  ) {
    this.steps = steps;
    this.requestRate = labelled("rate_limit", rateLimitStep(deps.counters, deps.now));
    this.toolCallRun = labelled("run_ceiling", runCeilingStep(deps, { toolCall: true }));
  }

  /**
   * A request that calls no model (a tool called over /mcp) through the rate-limit step alone: it counts against
   * the caller's requests per minute (the tenant's, and the key's or the user's), and is refused while one of
   * those is used up or a tokens-per-minute window is spent. Budgets do not apply: it costs nothing. With a run id,
   * its run's ceilings do: it counts one call, and is refused once the run's calls, USD, tokens or wall time are
   * used up. Answers the
   * step's events: a refusal is a blocking `guardrail` and an `error`; an admitted request may have a
   * `rate_limit_state`.
   */
  async admit(caller: Call["caller"]): Promise<PipelineEvent[]> {
    const policy = await this.policy(caller, "");
    if (Array.isArray(policy)) return policy;
    const call: Call = {
      caller,
      request: { model: "", messages: [] },
      stream: false,
      noCache: true,
      policy,
      gateway: this.deps.gateway(),
    };
    const events: PipelineEvent[] = [];
    const applying = [this.requestRate, this.toolCallRun].filter((step) => step.applies?.(call));
    if (!applying.length) return events;
    const active = tracing() ? applying.map(tracedStep) : applying;
    const chain = active.reduceRight<Next>(
      (next, step) => (c) => step(c, next),
      async function* () {},
    );
    for await (const event of chain(call)) events.push(event);
    return events;
  }

  async *run(
    caller: Call["caller"],
    request: ChatRequest & { model: string },
    options: { stream: boolean; noCache?: boolean; wire?: Call["wire"] },
  ): AsyncGenerator<PipelineEvent> {
    let guardrails: GuardrailPolicy | undefined;
    try {
      guardrails = await this.deps.guardrails?.policy(caller.tenantId);
    } catch (error) {
      // Never a silent pass: without its policy a tenant's call is refused, not let through unchecked.
      countFailure("pipeline");
      log.error({ err: error }, "could not read the tenant's guardrail policy; the call is refused");
      const message = "The tenant's guardrail policy could not be read; try again shortly.";
      yield { type: "guardrail", code: "guardrail_check_failed", message, blocking: true };
      yield {
        type: "error",
        error: { class: "guardrails_unavailable", message, status: 503, retryAfterSeconds: 5 },
        stamp: emptyStamp(request.model),
      };
      return;
    }
    const policy = await this.policy(caller, request.model);
    if (Array.isArray(policy)) {
      yield* policy;
      return;
    }
    const call: Call = {
      caller,
      request,
      stream: options.stream,
      noCache: options.noCache ?? false,
      wire: options.wire,
      policy,
      guardrails,
      gateway: this.deps.gateway(),
    };
    // Only the steps with something to do for this call: with no limit and no cached alias (the common case)
    // it goes straight to the gateway.
    const applying = this.steps.filter((step) => step.applies?.(call) ?? true);
    // Tracing on: each step has its span. Off: the steps as they are (no wrapper, no span objects).
    const active = tracing() ? applying.map(tracedStep) : applying;
    yield* active.reduceRight<Next>((next, step) => (c) => step(c, next), inference)(call);
  }

  /**
   * What the audit trail keeps of a request's text: the tenant's redacting input rules (deterministic ones, in
   * scope) applied, so what a rule keeps from the provider is not kept in clear in the audit either. The text as it
   * is when the tenant has no such rule; a policy that cannot be read is the call's refusal (run), not this one's.
   */
  async auditText(caller: Call["caller"], alias: string, text: string): Promise<string> {
    const guardrails = this.deps.guardrails;
    if (!guardrails || caller.source === "guardrail") return text;
    let policy: GuardrailPolicy;
    try {
      policy = await guardrails.policy(caller.tenantId);
    } catch {
      return text;
    }
    if (policy.rules.length === 0) return text;
    return redactedForAudit(guardrails.engine, policy, caller, alias, text);
  }

  /**
   * The call's policy, or the refusal's events when it cannot be read: never a call without its limits (a hard
   * budget let through unchecked while the database was away was passed, issue 39).
   */
  private async policy(caller: Caller, model: string): Promise<Policy | PipelineEvent[]> {
    try {
      return await loadPolicy(await this.deps.db(), caller);
    } catch (error) {
      countFailure("pipeline");
      log.error({ err: error }, "could not read the call's limits; the call is refused");
      const message = "The call's limits and budgets could not be read; try again shortly.";
      return [
        {
          type: "error",
          error: { class: "policy_unavailable", message, status: 503, retryAfterSeconds: 2 },
          stamp: emptyStamp(model),
        },
      ];
    }
  }
}
