import "server-only";
import { type Context, context, type Span, SpanKind, trace } from "@opentelemetry/api";
import { log } from "@/lib/core/process/log";
import { currentScope, defined, endSpan, spanParent, tracing } from "@/lib/core/process/trace";
import { maskText } from "@/lib/core/text/mask";
import type { Attempt, Usage } from "@/lib/gateway/types";
import type { ModelCallRecord, TurnEvent, TurnSummary } from "@/lib/turns/events";
import type { TurnObserver, TurnStart } from "@/lib/turns/observer";
import type { TollgateMetrics } from "./metrics";

/** A turn this observer watches: what its metrics, log line and spans need, nothing of its content. */
type Watched = {
  turn: TurnStart;
  span: Span | null;
  /** The context the turn's own spans hang under (its span's). */
  spanContext: Context | null;
  /** Model calls recorded by the agent loop (a call of its own has none: its summary is its one call). */
  modelCalls: number;
  attempts: Attempt[];
  fallbacks: number;
  toolStarts: Map<string, number>;
  answer?: string;
};

export type TelemetryOptions = {
  metrics: TollgateMetrics;
  /** The type of a gateway provider by its name (`gen_ai.provider.name`); unknown names pass as they are. */
  providerType?: (provider: string) => string | undefined;
};

/**
 * Wraps the ledger's recorder (TurnObserver) so that where a turn's ledger row closes, and only there, the turn
 * also counts in the metrics, writes its one JSON log line and (tracing on) its spans: every path that leaves
 * a ledger row (the drawer, schedules, /v1, playground, evaluations, /mcp) has them once.
 *
 * Spans: the turn's (`invoke_agent tollgate` for the agent loop, `tollgate <source>` for a call of its own) hangs
 * under the request's span; under it, a `chat <model>` span per attempt at a provider (GenAI semantic
 * conventions, drawn from the attempts' durations) and an `execute_tool <name>` span per tool run; the pipeline's
 * steps add theirs (lib/pipeline). No message text leaves unless OTEL_CAPTURE_CONTENT=1, and then masked.
 */
export class TelemetryObserver implements TurnObserver {
  private readonly watched = new Map<string, Watched>();
  constructor(
    private readonly inner: TurnObserver,
    private readonly options: TelemetryOptions,
  ) {}

  async start(turn: TurnStart): Promise<void> {
    const watched: Watched = {
      turn,
      span: null,
      spanContext: null,
      modelCalls: 0,
      attempts: [],
      fallbacks: 0,
      toolStarts: new Map(),
    };
    const t = tracing();
    if (t) this.openTurnSpan(watched, t.tracer);
    this.watched.set(turn.turnId, watched);
    return this.inner.start(turn);
  }

  event(turnId: string, event: TurnEvent): void {
    this.inner.event(turnId, event);
    const watched = this.watched.get(turnId);
    if (watched) this.note(watched, event);
  }

  async end(summary: TurnSummary): Promise<void> {
    const watched = this.watched.get(summary.turnId);
    this.watched.delete(summary.turnId);
    try {
      await this.inner.end(summary);
    } finally {
      if (watched) {
        try {
          this.close(watched, summary);
        } catch (error) {
          log.error({ err: error, turnId: summary.turnId }, "could not record the turn's metrics or spans");
        }
      }
    }
  }

  private openTurnSpan(watched: Watched, tracer: NonNullable<ReturnType<typeof tracing>>["tracer"]): void {
    const { turn } = watched;
    const parent = spanParent() ?? context.active();
    const chat = turn.conversationId !== null;
    const span = tracer.startSpan(
      chat ? "invoke_agent tollgate" : `tollgate ${turn.source}`,
      {
        kind: SpanKind.INTERNAL,
        startTime: turn.startedAt,
        attributes: defined({
          "gen_ai.operation.name": chat ? "invoke_agent" : undefined,
          "gen_ai.agent.name": chat ? "tollgate" : undefined,
          "gen_ai.conversation.id": turn.conversationId ?? undefined,
          "tollgate.turn_id": turn.turnId,
          "tollgate.tenant_id": turn.tenantId,
          "tollgate.source": turn.source,
          "tollgate.alias": turn.requestedModel,
          "tollgate.api_key_id": turn.apiKeyId,
          "tollgate.user_id": turn.apiKeyId ? undefined : turn.userId,
          "tollgate.prompt.name": turn.prompt?.name,
          "tollgate.prompt.version": turn.prompt?.version,
          "tollgate.input": tracing()?.captureContent ? maskText(turn.message) : undefined,
        }),
      },
      parent,
    );
    watched.span = span;
    watched.spanContext = trace.setSpan(parent, span);
    // The pipeline's step spans of this request hang under the turn from now on.
    const scope = currentScope();
    if (scope) scope.parent = watched.spanContext;
  }

  private note(watched: Watched, event: TurnEvent): void {
    const { metrics } = this.options;
    const { turn } = watched;
    switch (event.type) {
      case "model_call":
        watched.modelCalls++;
        watched.attempts.push(...event.call.attempts);
        if (watched.spanContext) this.modelCallSpans(watched, event.call);
        return;
      case "notice":
        if (event.code === "fallback") {
          watched.fallbacks++;
          metrics.fallbacks.inc({ tenant: turn.tenantId, alias: turn.requestedModel, source: turn.source });
        }
        return;
      case "guardrail":
        if (event.code === "rate_limit")
          metrics.rateLimitRefusals.inc({ tenant: turn.tenantId, source: turn.source });
        else if (
          event.code === "budget_hard" ||
          event.code === "budget_unpriced_model" ||
          event.code === "run_ceiling"
        )
          metrics.budgetRefusals.inc({ tenant: turn.tenantId, source: turn.source, reason: event.code });
        else if (event.code.startsWith("guardrail_"))
          metrics.guardrailActions.inc({
            tenant: turn.tenantId,
            source: turn.source,
            action: event.code.slice("guardrail_".length),
          });
        return;
      case "tool_call":
        if (watched.spanContext) watched.toolStarts.set(event.call.id, Date.now());
        return;
      case "tool_result":
        metrics.toolCalls.inc({
          tenant: turn.tenantId,
          tool: event.name,
          outcome: event.ok ? "ok" : "error",
        });
        if (watched.spanContext) this.toolSpan(watched, event);
        return;
      case "answer":
        if (watched.span && tracing()?.captureContent) watched.answer = event.text;
        return;
      default:
        return;
    }
  }

  private close(watched: Watched, summary: TurnSummary): void {
    const { turn } = watched;
    const attempts = watched.modelCalls ? watched.attempts : summary.attempts;
    this.count(turn, summary, attempts);
    if (watched.span) {
      // A call of its own (/v1, playground, evaluation) has no model_call events: its summary is its one call.
      if (!watched.modelCalls && summary.attempts.length)
        this.attemptSpans(watched, {
          startMs: 0,
          durationMs: summary.latencyMs,
          attempts: summary.attempts,
          servedModel: summary.servedModel,
          usage: summary.usage,
          cost: summary.cost,
          outcome: summary.status === "success" ? "ok" : summary.status === "stopped" ? "stopped" : "error",
          toolCalls: summary.toolTrace.length,
          firstTokenMs: summary.timeToFirstTokenMs,
          error: summary.error?.class,
        });
      const span = watched.span;
      span.setAttributes(
        defined({
          "tollgate.status": summary.status,
          "tollgate.served_provider": summary.servedProvider,
          "tollgate.served_model": summary.servedModel,
          "tollgate.fallback_index": summary.fallbackIndex,
          "tollgate.rounds": summary.rounds,
          "gen_ai.usage.input_tokens": inputTokens(summary.usage),
          "gen_ai.usage.output_tokens": summary.usage.outputTokens,
          "tollgate.cost_usd": summary.cost === null ? undefined : Number(summary.cost),
          "tollgate.cost_status": summary.costStatus,
          "tollgate.output": watched.answer === undefined ? undefined : maskText(watched.answer),
        }),
      );
      endSpan(
        span,
        summary.status === "failed" ? (summary.error?.class ?? "failed") : undefined,
        watched.turn.startedAt.getTime() + summary.latencyMs,
      );
    }
    requestLog(turn, summary, span(watched));
  }

  /** The metrics of a closed turn (its guardrails, fallbacks and tools counted as they came). */
  private count(turn: TurnStart, summary: TurnSummary, attempts: Attempt[]): void {
    const { metrics } = this.options;
    const provider = summary.servedProvider ?? "none";
    const alias = summary.requestedModel;
    const call = { tenant: turn.tenantId, alias, provider, source: turn.source };
    metrics.requests.inc({ ...call, status: summary.status });
    if (summary.error)
      metrics.errors.inc({
        tenant: turn.tenantId,
        alias,
        source: turn.source,
        error_class: summary.error.class,
      });
    const u = summary.usage;
    for (const [cls, n] of [
      ["input", u.inputTokens],
      ["cached_input", u.cachedInputTokens],
      ["cache_write", u.cacheWriteTokens],
      ["output", u.outputTokens],
      ["reasoning", u.reasoningTokens],
    ] as const)
      if (n > 0) metrics.tokens.inc({ ...call, class: cls }, n);
    // Images and audio: what they were billed by, beside (or instead of) tokens.
    for (const unit of ["images", "seconds", "characters"] as const) {
      const n = summary.units?.[unit];
      if (n) metrics.mediaUnits.inc({ ...call, unit }, n);
    }
    // The exact decimal stays in the ledger; Prometheus keeps a float.
    if (summary.cost === null) metrics.unpriced.inc(call);
    else if (Number(summary.cost) > 0) metrics.cost.inc(call, Number(summary.cost));
    metrics.latency.observe(
      { alias, provider, source: turn.source, status: summary.status },
      summary.latencyMs / 1000,
    );
    if (summary.timeToFirstTokenMs !== null)
      metrics.firstToken.observe({ alias, provider, source: turn.source }, summary.timeToFirstTokenMs / 1000);
    if (summary.cacheHits)
      metrics.cacheHits.inc({ tenant: turn.tenantId, alias, source: turn.source }, summary.cacheHits);
    let previous: Attempt | undefined;
    for (const a of attempts) {
      const deployment = { provider: a.provider, model: a.model };
      if (a.outcome === "skipped" && !a.errorClass) metrics.cooldownSkips.inc(deployment);
      if (a.outcome === "error" && a.errorClass)
        metrics.attemptErrors.inc({ ...deployment, error_class: a.errorClass });
      if (previous && previous.outcome === "error" && sameDeployment(previous, a))
        metrics.retries.inc(deployment);
      previous = a;
    }
  }

  /** The spans of one model call of the agent loop. */
  private modelCallSpans(watched: Watched, call: ModelCallRecord): void {
    this.attemptSpans(watched, {
      startMs: call.startMs,
      durationMs: call.durationMs,
      attempts: call.attempts,
      servedModel: call.servedModel,
      usage: call.usage,
      cost: call.cost,
      outcome: call.outcome,
      toolCalls: call.toolCalls,
      firstTokenMs: call.firstTokenMs,
      error: call.error?.class,
    });
  }

  /**
   * A `chat <model>` span per attempt at a provider, laid end to end from the call's start by their durations
   * (the gateway times each attempt; the answering one runs to the call's end, its stream included).
   */
  private attemptSpans(watched: Watched, call: AttemptsCall): void {
    const t = tracing();
    if (!t || !watched.spanContext) return;
    const { turn } = watched;
    const callStart = turn.startedAt.getTime() + call.startMs;
    const callEnd = callStart + call.durationMs;
    let at = callStart;
    let index = -1;
    let previous: Attempt | undefined;
    const lastTried = call.attempts.findLastIndex((a) => a.outcome !== "skipped");
    for (const [i, a] of call.attempts.entries()) {
      if (!previous || !sameDeployment(previous, a)) index++;
      previous = a;
      if (a.outcome === "skipped") continue;
      const answered = i === lastTried && a.outcome === "ok";
      const end = answered ? Math.max(callEnd, at + a.durationMs) : at + a.durationMs;
      const span = t.tracer.startSpan(
        `chat ${a.model}`,
        {
          kind: SpanKind.CLIENT,
          startTime: at,
          attributes: defined({
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": this.options.providerType?.(a.provider) ?? a.provider,
            "gen_ai.request.model": a.model,
            "gen_ai.response.model": answered ? (call.servedModel ?? a.model) : undefined,
            "gen_ai.usage.input_tokens": answered && call.usage ? inputTokens(call.usage) : undefined,
            "gen_ai.usage.output_tokens": answered && call.usage ? call.usage.outputTokens : undefined,
            "gen_ai.usage.cache_read.input_tokens":
              answered && call.usage?.cachedInputTokens ? call.usage.cachedInputTokens : undefined,
            "gen_ai.response.finish_reasons": answered
              ? [call.toolCalls ? "tool_calls" : "stop"]
              : a.outcome === "error"
                ? ["error"]
                : undefined,
            "tollgate.tenant_id": turn.tenantId,
            "tollgate.alias": turn.requestedModel,
            "tollgate.provider": a.provider,
            "tollgate.fallback_index": index,
            "tollgate.cost_usd": answered && call.cost !== null ? Number(call.cost) : undefined,
            "tollgate.time_to_first_token_ms": answered ? call.firstTokenMs : undefined,
            "tollgate.upstream_status": a.status,
          }),
        },
        watched.spanContext,
      );
      const failed =
        a.outcome === "error"
          ? (a.errorClass ?? "error")
          : answered && call.outcome === "error"
            ? call.error
            : undefined;
      endSpan(span, failed, end);
      at += a.durationMs;
    }
  }

  private toolSpan(watched: Watched, event: Extract<TurnEvent, { type: "tool_result" }>): void {
    const t = tracing();
    if (!t || !watched.spanContext) return;
    const now = Date.now();
    const started = watched.toolStarts.get(event.callId) ?? now - event.durationMs;
    watched.toolStarts.delete(event.callId);
    const span = t.tracer.startSpan(
      `execute_tool ${event.name}`,
      {
        kind: SpanKind.INTERNAL,
        startTime: Math.max(started, now - event.durationMs),
        attributes: defined({
          "gen_ai.operation.name": "execute_tool",
          "gen_ai.tool.name": event.name,
          "gen_ai.tool.call.id": event.callId,
          "gen_ai.tool.type": "function",
          "tollgate.tenant_id": watched.turn.tenantId,
          "gen_ai.tool.call.result": t.captureContent ? maskText(event.result) : undefined,
        }),
      },
      watched.spanContext,
    );
    endSpan(span, event.ok ? undefined : "tool_error", now);
  }
}

type AttemptsCall = {
  /** From the turn's start. */
  startMs: number;
  durationMs: number;
  attempts: Attempt[];
  servedModel: string | null;
  usage: Usage | null;
  cost: string | null;
  outcome: "ok" | "error" | "stopped";
  toolCalls: number;
  firstTokenMs: number | null;
  error?: string;
};

const sameDeployment = (a: Attempt, b: Attempt) => a.provider === b.provider && a.model === b.model;

/** All the prompt's tokens, as the GenAI conventions count them (Tollgate's inputTokens leave the cached out). */
const inputTokens = (u: Usage) => u.inputTokens + u.cachedInputTokens + u.cacheWriteTokens;

const span = (watched: Watched) => watched.span;

/**
 * The one JSON line a turn or API call writes when its ledger row closes: who, what was asked, who answered,
 * how it ended, tokens, cost and time. Never content (no message, no answer, no error text: its class only).
 */
function requestLog(turn: TurnStart, summary: TurnSummary, turnSpan: Span | null): void {
  const u = summary.usage;
  log.info(
    {
      requestId: turn.turnId,
      tenantId: turn.tenantId,
      ...(turn.apiKeyId ? { keyId: turn.apiKeyId } : { userId: turn.userId }),
      source: turn.source,
      ...(turn.conversationId ? { conversationId: turn.conversationId } : {}),
      alias: summary.requestedModel,
      provider: summary.servedProvider,
      model: summary.servedModel,
      status: summary.status,
      ...(summary.error ? { errorClass: summary.error.class } : {}),
      fallbackIndex: summary.fallbackIndex,
      attempts: summary.attempts.length,
      inputTokens: u.inputTokens,
      cachedInputTokens: u.cachedInputTokens,
      outputTokens: u.outputTokens,
      cost: summary.cost,
      costStatus: summary.costStatus ?? (summary.cost === null ? "unpriced" : "priced"),
      latencyMs: summary.latencyMs,
      timeToFirstTokenMs: summary.timeToFirstTokenMs,
      ...(summary.cacheHits ? { cacheHit: true } : {}),
      ...(turnSpan ? { traceId: turnSpan.spanContext().traceId } : {}),
    },
    turn.conversationId === null ? "call" : "turn",
  );
}
