/** Runs once when the server starts: opens, migrates and seeds the database before the first request. */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs" || process.env.NEXT_PHASE === "phase-production-build") return;
  // Before the first request: route handlers learn the client's socket address from a header only we set.
  (await import("./lib/http/client-address")).recordSocketAddresses();
  // Spans go to OTEL_EXPORTER_OTLP_ENDPOINT when it is set (else tracing stays off); Next's own spans join ours.
  (await import("./lib/observability/tracing")).startTracing();
  const { startServer } = await import("./server/startup");
  await startServer();
}
