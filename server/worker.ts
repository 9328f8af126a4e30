/**
 * The worker: runs Tollgate's background work (the interrupted-turn and expired-row sweeps, retention, the
 * rollups' reconciliation, clock schedules, background tasks and evaluation runs) under the leader lock, so any
 * number of workers and apps on one database run each job once. Run it with TOLLGATE_WORKER=external on the
 * apps, which then run none of it.   npm run worker
 * Probes on WORKER_HEALTH_PORT when set: /health/live, /health/ready, and /metrics (the worker's own counters:
 * alert deliveries, background tasks, schedules; the same token rules as the app's).
 */
import { createServer } from "node:http";
import { listenBeforeReady } from "@/lib/cluster";
import { markStarted, shutdownTimeoutMs } from "@/lib/core/process/lifecycle";
import { log } from "@/lib/core/process/log";
import { interruptOwnTurns, startHeartbeat } from "@/lib/governance/maintenance";
import { installShutdownFlush } from "@/lib/governance/shutdown";
import { startTracing, stopTracing } from "@/lib/observability";
import { backgroundWork } from "@/server/background";
import { createContainer, installContainer } from "@/server/container";
import { isMetrics, serveMetrics } from "./metrics";
import { serveProbe } from "./probes";

// Scheduled turns and evaluation items are model calls too: traced when OTEL_EXPORTER_OTLP_ENDPOINT is set.
startTracing();
const app = installContainer(createContainer());
const healthPort = process.env.WORKER_HEALTH_PORT ? Number(process.env.WORKER_HEALTH_PORT) : null;
if (healthPort !== null) {
  const probes = createServer((incoming, outgoing) => {
    if (serveProbe(incoming, outgoing)) return;
    if (isMetrics(incoming)) return void serveMetrics(app.telemetry, incoming, outgoing);
    outgoing.writeHead(404).end();
  });
  probes.listen(healthPort, "0.0.0.0", () => log.info({ port: healthPort }, "worker probes listening"));
}
try {
  void app.gateway;
  const handle = await app.database();
  // The heartbeat first: the turns this worker runs (clock schedules, evaluation items) are never swept as orphans.
  await startHeartbeat(app.instance);
  // Tool sets are registered here, so a tool name clash stops the start.
  void app.agent;
  // The other instances hear of this worker's cooldowns (and it of theirs), and of the tasks stopped here.
  app.cluster.start();
  await listenBeforeReady(app.cluster);
  const work = backgroundWork(app);
  await work.start();
  // On SIGTERM: nothing more is claimed, what runs gets until the cut to finish, what did not is interrupted.
  installShutdownFlush({
    deadlineMs: shutdownTimeoutMs(),
    settle: () => work.stop(),
    after: async () => {
      await interruptOwnTurns(handle.db, app.instance.id);
      if (handle.kind === "pglite") await handle.close();
      await stopTracing().catch(() => {});
    },
  });
  markStarted();
  log.info({ database: handle.label, leading: work.leading }, "tollgate worker ready");
} catch (error) {
  process.stderr.write(
    `Tollgate worker cannot start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
}
// Every timer of the background work lets the process end; the worker lives until it is stopped.
setInterval(() => {}, 1 << 30);
