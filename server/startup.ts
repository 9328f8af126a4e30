import "server-only";
import { DatabaseUnavailableError } from "@/db/client";
import { migrationStatus } from "@/db/migrate";
import { PageSchemaError } from "@/features/admin-tables/server/load";
import { installBudgetAlerts } from "@/features/alerts/server";
import { warnIfDemoPasswordsRemain } from "@/features/demo/server";
import { startKeyEvents } from "@/lib/auth/key-events";
import { listenBeforeReady } from "@/lib/cluster";
import { markStarted, setClaimsBackgroundWork, shutdownTimeoutMs } from "@/lib/core/process/lifecycle";
import { log } from "@/lib/core/process/log";
import { GatewayConfigError, PRICE_CATALOG, unpricedCandidates } from "@/lib/gateway";
import { interruptOwnTurns, startHeartbeat } from "@/lib/governance/maintenance";
import { installShutdownFlush } from "@/lib/governance/shutdown";
import { stopTracing } from "@/lib/observability";
import { backgroundWork, type LeaderWork, workerModeFromEnv } from "@/server/background";
import { createContainer, installContainer } from "@/server/container";

/**
 * Builds the process's container and starts what it runs: the gateway config and the database at once (either one
 * unusable stops the process with one line that says why), the heartbeat, the cluster bus and the key revocation
 * feed on it, the background work (here or in the worker), the shutdown flush, and the page schemas; then the
 * readiness probe says ready.
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
    // The demo (accounts, orders, sample usage) is seeded into an empty database where `demoEnabled`: SEED_DEMO=1,
    // or SEED_DEMO unset on the embedded database; never on PostgreSQL by default.
    const handle = await app.database();
    // A real deployment still holding the published demo password says so once, without delaying the start.
    void warnIfDemoPasswordsRemain(handle).catch((error: unknown) =>
      log.warn({ err: error }, "could not check for demo accounts"),
    );
    const migration = await migrationStatus(handle);
    // A read replica named by DATABASE_READ_URL is opened now: a bad URL stops the start (a replica that is down
    // does not: the pages read from the primary until it answers).
    if (app.reads) await app.reads();
    // This process's heartbeat first, so its turns never look orphaned to another instance's sweep.
    await startHeartbeat(app.instance);
    // A budget moving past 50, 80 or 100 % evaluates its tenant's budget alert rules at once.
    installBudgetAlerts({ db: () => app.db(), counters: () => app.stores.counters });
    // Tool sets are registered here, so a tool name clash stops the start.
    void app.agent;
    // The line to the other instances: Stop and Approve / Deny reach the turn wherever it runs, cooldowns are
    // shared, and revoked keys and disabled tenants are refused at once on every instance.
    startKeyEvents(app.keyCache, app.cluster.start());
    // Ready only once the bus listens, so what another instance announces from now on reaches this one.
    await listenBeforeReady(app.cluster);
    // Background work (sweeps, retention, reconciliation, clock schedules, background tasks, evaluation runs):
    // here under the leader lock (one instance of N runs it), or only in `npm run worker` (TOLLGATE_WORKER).
    let work: LeaderWork | null = null;
    if (workerModeFromEnv() === "inline") {
      work = backgroundWork(app);
      await work.start();
    } else setClaimsBackgroundWork(false);
    // SIGTERM/SIGINT: readiness goes false, the API ledger's backlog is written, and what this process could not
    // finish by TOLLGATE_SHUTDOWN_TIMEOUT_MS is recorded as interrupted before it exits (next start's own
    // handler stops taking requests and waits for the ones in progress meanwhile).
    installShutdownFlush({
      deadlineMs: shutdownTimeoutMs(),
      // Background work stops claiming and finishes what it runs; then another instance (or the worker) leads.
      settle: async () => work?.stop(),
      after: async () => {
        await interruptOwnTurns(handle.db, app.instance.id);
        // The embedded database is closed cleanly, so the next start finds every row it was given.
        if (handle.kind === "pglite") await handle.close();
        // The last turns' spans go out before the process ends (tracing on).
        await stopTracing().catch(() => {});
      },
    });
    // A broken page schema stops the start, naming the file and the field.
    void app.pages;
    markStarted();
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
