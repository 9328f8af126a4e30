/**
 * The lean gateway: serves the /v1 handler from plain Node (no Next) on GATEWAY_PORT (default 3001), with the
 * app's configuration and database, for deployments that need throughput.   npm run gateway
 */
import { createServer } from "node:http";
import { createContainer, installContainer } from "@/lib/container";
import { startDraining } from "@/lib/core/lifecycle";
import { log } from "@/lib/core/log";
import { drainBatchers } from "@/lib/governance/shutdown";
import { apiBodyLimits } from "@/lib/http/limits";
import { startKeyEvents } from "@/lib/keys/key-events";
import { startTracing, stopTracing } from "@/lib/observability";
import { isMetrics, serveMetrics } from "./metrics";
import { serveApi } from "./serve";

const port = Number(process.env.GATEWAY_PORT ?? 3001);
// Before anything serves: spans go to OTEL_EXPORTER_OTLP_ENDPOINT when it is set (else tracing stays off).
startTracing();
const app = installContainer(createContainer());
try {
  void app.gateway;
  await app.database();
  // Revoked keys and disabled tenants are refused at once on every instance.
  startKeyEvents(app.keyCache);
} catch (error) {
  process.stderr.write(
    `Tollgate gateway cannot start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
}
// Bodies past MAX_BODY_BYTES are refused (413) while they stream in, before the handler or a provider sees them.
const { maxBytes: maxBodyBytes } = apiBodyLimits();
// node:http straight into the transport-neutral handler: no Web Request or Response is built for a call.
const api = serveApi(app.v1.core, { maxBodyBytes });
const server = createServer((incoming, outgoing) =>
  isMetrics(incoming) ? void serveMetrics(app.telemetry, incoming, outgoing) : api(incoming, outgoing),
);
server.listen(port, "0.0.0.0", () => log.info({ port, maxBodyBytes }, "tollgate lean gateway listening"));
// On stop: new calls are refused (503), the calls in progress finish, and every ledger row is written before the
// process ends (at the latest 5 s after the signal).
const stop = async () => {
  startDraining();
  server.close();
  server.closeIdleConnections();
  await drainBatchers(Date.now() + 5_000);
  await stopTracing().catch(() => {});
  process.exit(0);
};
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void stop());
