import "server-only";
import { DatabaseUnavailableError } from "@/db/client";
import { migrationStatus } from "@/db/migrate";
import { createContainer, installContainer } from "@/lib/container";
import { log } from "@/lib/core/log";
import { GatewayConfigError, PRICE_CATALOG, unpricedCandidates } from "@/lib/gateway";
import { startGovernanceMaintenance } from "@/lib/governance/maintenance";
import { installShutdownFlush } from "@/lib/governance/shutdown";
import { startKeyEvents } from "@/lib/keys/key-events";
import { stopTracing } from "@/lib/observability";
import { PageSchemaError } from "@/lib/schema-pages/load";

/**
 * Builds the process's container and starts what it runs: the gateway config and the database at once (either one
 * unusable stops the process with one line that says why), maintenance, the agent's schedules and tasks, the key
 * revocation feed, the shutdown flush, and the page schemas.
 */
export async function startServer(): Promise<void> {
  try {
    const app = installContainer(createContainer());
    const gateway = app.gateway;
    log.info(
      { gateway: gateway.config.source, models: Object.keys(gateway.config.models) },
      "gateway configured",
    );
    // An unpriced model's calls are recorded with no cost (and refused under a hard budget): say so at start.
    for (const candidate of unpricedCandidates(gateway.config)) {
      log.warn(
        { ...candidate, catalog: `${PRICE_CATALOG.source}@${PRICE_CATALOG.version}` },
        "model has no price: neither the config's prices nor the price catalog name it",
      );
    }
    // The demo (accounts, orders, sample usage) is seeded into an empty database unless SEED_DEMO=0.
    const handle = await app.database();
    const migration = await migrationStatus(handle);
    // This process's heartbeat first, so its turns never look orphaned; turns of dead processes are swept.
    await startGovernanceMaintenance(app.instance);
    // Tool sets are registered here, so a tool name clash stops the start; clock schedules begin firing and
    // background tasks (queued, or left by a dead process) are picked up.
    const runtime = app.agent;
    runtime.scheduler.start();
    runtime.tasks.startRunner();
    // Evaluation runs (queued, or left by a dead process) are worked through; from SIGTERM on (the shutdown
    // flush marks the process draining) nothing more is claimed, and what a killed process held is claimed again.
    app.evals.start();
    // Revoked keys and disabled tenants are refused at once on every instance.
    startKeyEvents(app.keyCache);
    // SIGTERM/SIGINT write the API ledger's backlog before the process ends (alongside next start's own handler).
    installShutdownFlush({
      deadlineMs: Number(process.env.TOLLGATE_SHUTDOWN_TIMEOUT_MS) || 10_000,
      // The embedded database is closed cleanly, so the next start finds every row it was given.
      after: async () => {
        if (handle.kind === "pglite") await handle.close();
        // The last turns' spans go out before the process ends (tracing on).
        await stopTracing().catch(() => {});
      },
    });
    // A broken page schema stops the start, naming the file and the field.
    void app.pages;
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
