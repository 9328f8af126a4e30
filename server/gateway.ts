/**
 * The lean gateway: serves the /v1 handler from plain Node (no Next) on GATEWAY_PORT (default 3001), with the
 * app's configuration and database, for deployments that need throughput.   npm run gateway
 */
import { createServer } from "node:http";
import { getDatabase, prepareDatabaseWith } from "@/db";
import { log } from "@/lib/core/log";
import { demoPreparation } from "@/lib/demo";
import { getGateway } from "@/lib/gateway";
import { apiBodyLimits } from "@/lib/http/limits";
import { processKeyCache } from "@/lib/keys/api-keys";
import { startKeyEvents } from "@/lib/keys/key-events";
import { flushV1Ledger, v1Handler } from "@/lib/v1";
import { serveFetchHandler } from "./serve";

const port = Number(process.env.GATEWAY_PORT ?? 3001);
try {
  getGateway();
  prepareDatabaseWith(demoPreparation());
  await getDatabase();
  // Revoked keys and disabled tenants are refused at once on every instance.
  startKeyEvents(processKeyCache());
} catch (error) {
  process.stderr.write(
    `Tollgate gateway cannot start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
}
// Bodies past MAX_BODY_BYTES are refused (413) while they stream in, before the handler or a provider sees them.
const { maxBytes: maxBodyBytes } = apiBodyLimits();
const server = createServer(serveFetchHandler(v1Handler(), { maxBodyBytes }));
server.listen(port, "0.0.0.0", () => log.info({ port, maxBodyBytes }, "tollgate lean gateway listening"));
// On stop: no new requests, then the last batch of ledger rows is written before the process ends.
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.on(signal, () => {
    server.close(() => void flushV1Ledger().finally(() => process.exit(0)));
    server.closeIdleConnections();
    setTimeout(() => void flushV1Ledger().finally(() => process.exit(0)), 5_000).unref();
  });
