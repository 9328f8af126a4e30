/**
 * The lean gateway: serves the /v1 handler from plain Node (no Next) on GATEWAY_PORT (default 3001), with the
 * app's configuration and database, for deployments that need throughput.   npm run gateway
 */
import { createServer } from "node:http";
import { createContainer, installContainer } from "@/lib/container";
import { log } from "@/lib/core/log";
import { apiBodyLimits } from "@/lib/http/limits";
import { startKeyEvents } from "@/lib/keys/key-events";
import { serveFetchHandler } from "./serve";

const port = Number(process.env.GATEWAY_PORT ?? 3001);
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
const server = createServer(serveFetchHandler(app.v1.handler, { maxBodyBytes }));
server.listen(port, "0.0.0.0", () => log.info({ port, maxBodyBytes }, "tollgate lean gateway listening"));
// On stop: no new requests, then the last batch of ledger rows is written before the process ends.
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.on(signal, () => {
    server.close(() => void app.v1.flush().finally(() => process.exit(0)));
    server.closeIdleConnections();
    setTimeout(() => void app.v1.flush().finally(() => process.exit(0)), 5_000).unref();
  });
