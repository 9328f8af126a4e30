/**
 * The lean gateway: serves the /v1 handler from plain Node (no Next) on GATEWAY_PORT (default 3001), with the
 * app's configuration and database, for deployments that need throughput.   npm run gateway
 * Probes: /health/live and /health/ready. It runs no background work (the app or `npm run worker` does).
 */
import { createServer, type RequestListener } from "node:http";
import { installBudgetAlerts } from "@/features/alerts/server";
import { startKeyEvents } from "@/lib/auth/key-events";
import { listenBeforeReady } from "@/lib/cluster";
import {
  isDraining,
  markStarted,
  reachShutdownDeadline,
  shutdownTimeoutMs,
  startDraining,
} from "@/lib/core/process/lifecycle";
import { log } from "@/lib/core/process/log";
import { drainBatchers } from "@/lib/governance/shutdown";
import { apiBodyLimits } from "@/lib/http/limits";
import { startTracing, stopTracing } from "@/lib/observability";
import { createContainer, installContainer } from "@/server/container";
import { isMetrics, serveMetrics } from "./metrics";
import { serveProbe } from "./probes";
import { serveApi } from "./serve";

const port = Number(process.env.GATEWAY_PORT ?? 3001);
// Before anything serves: spans go to OTEL_EXPORTER_OTLP_ENDPOINT when it is set (else tracing stays off).
startTracing();
const app = installContainer(createContainer());
// Bodies past MAX_BODY_BYTES are refused (413) while they stream in, before the handler or a provider sees them.
const { maxBytes: maxBodyBytes } = apiBodyLimits();
let api: RequestListener | null = null;
// node:http straight into the transport-neutral handler: no Web Request or Response is built for a call. The
// probes (and /metrics) answer from the first moment; calls wait for the start (503 until then, like readiness).
const server = createServer((incoming, outgoing) => {
  if (serveProbe(incoming, outgoing)) return;
  if (isMetrics(incoming)) return void serveMetrics(app.telemetry, incoming, outgoing);
  if (api) return api(incoming, outgoing);
  const body = JSON.stringify({ error: { message: "Tollgate is starting; retry.", type: "starting" } });
  outgoing.writeHead(503, { "content-type": "application/json", "retry-after": "1", connection: "close" });
  outgoing.end(body);
});
server.listen(port, "0.0.0.0", () => log.info({ port, maxBodyBytes }, "tollgate lean gateway listening"));
try {
  void app.gateway;
  await app.database();
  // A budget moving past 50, 80 or 100 % evaluates its tenant's budget alert rules at once.
  installBudgetAlerts({ db: () => app.db(), counters: () => app.stores.counters });
  // The line to the other instances: revoked keys and disabled tenants are refused at once on every instance,
  // and a deployment one instance finds failing is skipped by all of them.
  startKeyEvents(app.keyCache, app.cluster.start());
  // Ready only once the bus listens, so what another instance announces from now on reaches this one.
  await listenBeforeReady(app.cluster);
} catch (error) {
  process.stderr.write(
    `Tollgate gateway cannot start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
}
// Each path's own body limit (an audio upload's and an image edit's are larger than JSON's).
api = serveApi(app.v1.core);
markStarted();
log.info("tollgate lean gateway ready");

// On stop: readiness goes false and new calls are refused (503 with Retry-After and Connection: close; the port
// stays open so probes and late callers get an answer, not a refused connection); the calls in progress get until
// the final quarter of TOLLGATE_SHUTDOWN_TIMEOUT_MS (at most 2 s before it) to finish, then are cut and recorded as
// interrupted; every ledger row is written before the process ends.
const stop = async () => {
  if (isDraining()) return;
  startDraining();
  const timeoutMs = shutdownTimeoutMs();
  const deadline = Date.now() + timeoutMs;
  server.closeIdleConnections();
  const cut = setTimeout(reachShutdownDeadline, timeoutMs - Math.min(2_000, timeoutMs / 4));
  const written = await drainBatchers(deadline);
  clearTimeout(cut);
  if (written) log.info("ledger flushed; exiting");
  await stopTracing().catch(() => {});
  process.exit(0);
};
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void stop());
