import { getDatabase, prepareDatabaseWith } from "@/db";
import { DatabaseUnavailableError } from "@/db/client";
import { migrationStatus } from "@/db/migrate";
import { getAgentRuntime } from "@/lib/agent";
import { log } from "@/lib/core/log";
import { demoPreparation } from "@/lib/demo";
import { GatewayConfigError, getGateway } from "@/lib/gateway";
import { startGovernanceMaintenance } from "@/lib/governance/maintenance";
import { installShutdownFlush } from "@/lib/governance/shutdown";
import { processKeyCache } from "@/lib/keys/api-keys";
import { startKeyEvents } from "@/lib/keys/key-events";
import { pageSchemas } from "@/lib/schema-pages";
import { PageSchemaError } from "@/lib/schema-pages/load";

/**
 * Loads the gateway config and opens the database at start; either one unusable stops the process with one
 * line that says why.
 */
export async function startServer(): Promise<void> {
  try {
    const gateway = getGateway();
    log.info(
      { gateway: gateway.config.source, models: Object.keys(gateway.config.models) },
      "gateway configured",
    );
    // The demo (accounts, orders, sample usage) is seeded into an empty database unless SEED_DEMO=0.
    prepareDatabaseWith(demoPreparation());
    const handle = await getDatabase();
    const migration = await migrationStatus(handle);
    // This process's heartbeat first, so its turns never look orphaned; turns of dead processes are swept.
    await startGovernanceMaintenance();
    // Tool sets are registered here, so a tool name clash stops the start; clock schedules begin firing and
    // background tasks (queued, or left by a dead process) are picked up.
    const runtime = getAgentRuntime();
    runtime.scheduler.start();
    runtime.tasks.startRunner();
    // Revoked keys and disabled tenants are refused at once on every instance.
    startKeyEvents(processKeyCache());
    // SIGTERM/SIGINT write the API ledger's backlog before the process ends (alongside next start's own handler).
    installShutdownFlush({
      deadlineMs: Number(process.env.TOLLGATE_SHUTDOWN_TIMEOUT_MS) || 10_000,
      // The embedded database is closed cleanly, so the next start finds every row it was given.
      after: async () => {
        if (handle.kind === "pglite") await handle.close();
      },
    });
    // A broken page schema stops the start, naming the file and the field.
    pageSchemas();
    log.info({ database: handle.label, migration }, "tollgate ready");
  } catch (error) {
    const reason =
      error instanceof DatabaseUnavailableError ||
      error instanceof GatewayConfigError ||
      error instanceof PageSchemaError
        ? error.message
        : `start-up failed: ${String(error)}`;
    process.stderr.write(`Tollgate cannot start: ${reason}\n`);
    process.exit(1);
  }
}
