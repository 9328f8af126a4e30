import "server-only";
import { context, propagation, trace } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from "@opentelemetry/semantic-conventions";
import { log } from "@/lib/core/process/log";
import { peekProcessSlot, setProcessSlot } from "@/lib/core/process/process-state";
import { installTracing, tracing } from "@/lib/core/process/trace";
import pkg from "@/package.json";

const PROVIDER = "observability.tracer-provider";

type Env = Record<string, string | undefined>;

/** Where spans go: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, else OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces. */
export function tracesEndpoint(env: Env): string | null {
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (traces) return traces;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  return base ? `${base.replace(/\/+$/, "")}/v1/traces` : null;
}

/**
 * Starts OpenTelemetry tracing for this process when an OTLP endpoint is set (else does nothing, and every span
 * site stays a null check): spans go to the endpoint as OTLP/HTTP (JSON), in batches; W3C `traceparent` from
 * callers is honoured (the provider registers the W3C propagator and an AsyncLocalStorage context manager, which
 * Next's own spans use too). Headers come from OTEL_EXPORTER_OTLP_HEADERS as the exporter reads them. Once per
 * process: a second call answers whether tracing is on.
 */
export function startTracing(env: Env = process.env): boolean {
  if (tracing()) return true;
  const url = tracesEndpoint(env);
  if (!url) return false;
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({
      [ATTR_SERVICE_NAME]: env.OTEL_SERVICE_NAME?.trim() || "tollgate",
      [ATTR_SERVICE_VERSION]: pkg.version,
    }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url }))],
  });
  provider.register();
  setProcessSlot(PROVIDER, provider);
  installTracing({
    tracer: trace.getTracer("tollgate", pkg.version),
    captureContent: env.OTEL_CAPTURE_CONTENT === "1",
  });
  log.info({ endpoint: url, captureContent: env.OTEL_CAPTURE_CONTENT === "1" }, "tracing on (OTLP/HTTP)");
  return true;
}

/** Sends the spans not sent yet (on shutdown, and in tests before they look). */
export async function flushTracing(): Promise<void> {
  await peekProcessSlot<NodeTracerProvider>(PROVIDER)?.forceFlush();
}

/** Sends what is left and turns tracing off (a stopping process; tests). */
export async function stopTracing(): Promise<void> {
  const provider = peekProcessSlot<NodeTracerProvider>(PROVIDER);
  installTracing(undefined);
  setProcessSlot(PROVIDER, undefined);
  if (!provider) return;
  await provider.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
}
