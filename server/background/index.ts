import "server-only";
import { alertEvaluationService } from "@/features/alerts/server";
import { reviewFillService } from "@/features/reviews/server/service";
import { maintenanceJobs } from "@/lib/governance/maintenance";
import type { Container } from "@/server/container";
import { type BackgroundService, type LeaderOptions, LeaderWork } from "./leader";

export { type BackgroundService, LeaderWork } from "./leader";

/** Any fixed 32-bit number: the one process holding it runs the background work. */
export const BACKGROUND_LEADER_LOCK_ID = 727_100_010;

/**
 * Where background work runs, from `TOLLGATE_WORKER`:
 * - `inline` (the default, so `npm start` alone does everything): the app runs it, under the leader lock, so with
 *   N replicas exactly one of them does;
 * - `external`: the app and the lean gateway run none of it (and claim no tasks or evaluation items); `npm run
 *   worker` does, under the same lock (so a second worker stands by).
 */
export type WorkerMode = "inline" | "external";

export function workerModeFromEnv(env: Record<string, string | undefined> = process.env): WorkerMode {
  const value = env.TOLLGATE_WORKER?.trim().toLowerCase();
  if (!value || value === "inline") return "inline";
  if (value === "external") return "external";
  throw new Error(`TOLLGATE_WORKER must be "inline" or "external" (got "${env.TOLLGATE_WORKER}")`);
}

/**
 * The background work of a process built on `app`: the maintenance jobs (sweeps, retention, reconciliation) and
 * the services (clock schedules, background tasks, evaluation runs, alert deliveries), under the leader lock on
 * its database.
 * Stopping a service stops its claiming and waits for what it runs (a shutdown waits only until its cut; what
 * was not finished then is recorded as interrupted, or claimed again elsewhere once its lease expires).
 */
export function backgroundWork(
  app: Container,
  options: Partial<Pick<LeaderOptions, "checkMs" | "onRun" | "jobs">> = {},
): LeaderWork {
  const services: BackgroundService[] = [
    {
      name: "clock schedules",
      start: () => app.agent.scheduler.start(),
      stop: () => app.agent.scheduler.stop(),
    },
    {
      name: "background tasks",
      start: () => app.agent.tasks.startRunner(),
      stop: async () => {
        app.agent.tasks.stopRunner();
        await app.agent.tasks.idle();
      },
    },
    {
      name: "evaluation runs",
      start: () => app.evals.start(),
      stop: async () => {
        app.evals.stop();
        await app.evals.idle();
      },
    },
    {
      name: "alert deliveries",
      start: () => app.alerts.start(),
      stop: () => app.alerts.stop(),
    },
    // The alert rules, evaluated every minute (their deliveries are the delivery service's).
    alertEvaluationService({
      db: () => app.db(),
      counters: () => app.stores.counters,
      routes: () => app.gateway.routingTable(),
      wake: () => app.alerts.wake(),
    }),
    // The review queues, filled from the ledger and its scores every minute (`next` also fills a stale queue).
    reviewFillService({ db: () => app.db() }),
  ];
  return new LeaderWork({
    acquire: async () => (await app.database()).holdAdvisoryLock(BACKGROUND_LEADER_LOCK_ID),
    jobs: options.jobs ?? maintenanceJobs(),
    services,
    checkMs: options.checkMs,
    onRun: options.onRun,
  });
}
