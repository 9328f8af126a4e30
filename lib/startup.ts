import { getDatabase } from "@/db";
import { DatabaseUnavailableError } from "@/db/client";
import { migrationStatus } from "@/db/migrate";
import { getAgentRuntime } from "@/lib/agent";
import { processKeyCache } from "@/lib/api-keys";
import { GatewayConfigError, getGateway } from "@/lib/gateway";
import { startGovernanceMaintenance } from "@/lib/governance/maintenance";
import { startKeyEvents } from "@/lib/key-events";
import { log } from "@/lib/log";
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
