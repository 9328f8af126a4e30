import {
  type Attributes,
  type Context,
  context,
  createContextKey,
  type Span,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import { peekProcessSlot, setProcessSlot } from "./process-state";

/**
 * Tracing as the code paths see it: null when it is off (no OTEL_EXPORTER_OTLP_ENDPOINT), so a call costs one
 * lookup and builds no span. Started once per process (instrumentation.ts, server/gateway.ts; see tracing.ts).
 */
export type Tracing = {
  tracer: Tracer;
  /** OTEL_CAPTURE_CONTENT=1: message text goes on spans, masked (lib/core/mask). Off by default. */
  captureContent: boolean;
};

const SLOT = "observability.tracing";

export function tracing(): Tracing | null {
  return peekProcessSlot<Tracing>(SLOT) ?? null;
}

export function installTracing(value: Tracing | undefined): void {
  setProcessSlot(SLOT, value);
}

/**
 * Where the spans of one request hang: the request's span (an HTTP server span, ours or Next's) until its turn
 * starts, then the turn's span. Carried in the request's context; the turn's observer moves `parent` down.
 */
export type TraceScope = { parent: Context };

const SCOPE = createContextKey("tollgate.trace-scope");

/** A context whose spans hang under `parent` (moved later by `enterTurn`). */
export function scopedContext(parent: Context): Context {
  const scope: TraceScope = { parent };
  return parent.setValue(SCOPE, scope);
}

/** The current request's scope, if the code runs inside a traced request. */
export function currentScope(): TraceScope | null {
  return (context.active().getValue(SCOPE) as TraceScope | undefined) ?? null;
}

/**
 * The context new spans of the running request should hang under: its scope's parent, else the active span's
 * context (a Next span), else null (no trace to join: work outside a request, such as a worker's evaluation call,
 * starts its own trace at its turn).
 */
export function spanParent(): Context | null {
  const scope = currentScope();
  if (scope) return scope.parent;
  const active = context.active();
  return trace.getSpan(active) ? active : null;
}

/** Ends a span at `endTime` with an error status when `error` is given (its class only: never a message). */
export function endSpan(span: Span, error?: string, endTime?: number): void {
  if (error) {
    span.setAttribute("error.type", error);
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end(endTime);
}

/** Attributes without the undefined and null values (OpenTelemetry drops them with a warning). */
export function defined(attributes: Record<string, unknown>): Attributes {
  const out: Attributes = {};
  for (const [key, value] of Object.entries(attributes))
    if (value !== undefined && value !== null) out[key] = value as Attributes[string];
  return out;
}
