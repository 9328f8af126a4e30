import "server-only";
import { type Database, getDatabase } from "@/db";
import { compactPartitions, ensurePartitions } from "@/db/partitions";
import { log } from "@/lib/core/process/log";
import { sweepExpiredPipelineRows } from "@/lib/pipeline/cache-store";
import { sweepRunStarts } from "@/lib/pipeline/run-ceiling";
import { runArchiveOnce } from "./archive";
import {
  forgetDeadInstances,
  HEARTBEAT_INTERVAL_MS,
  markDeadNeighbours,
  type ProcessIdentity,
  writeHeartbeat,
} from "./instance";
import { interruptTurnsOf, sweepInterruptedTurns } from "./ledger";
import { reconcileRollups } from "./reconcile";
import { applyRetention } from "./retention";

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
// Any fixed 32-bit number: one instance at a time applies retention.
const RETENTION_LOCK_ID = 727_100_002;
// One instance at a time reconciles the rollups with the ledger.
const RECONCILE_LOCK_ID = 727_100_003;
const COMPACTION_LOCK_ID = 727_100_012;

/** A maintenance job: run by the one process that holds the background leader lock (server/background). */
export type MaintenanceJob = {
  name: string;
  /** First run this long after the process took the lead. */
  firstAfterMs: number;
  everyMs: number;
  run(): Promise<void>;
};

/**
 * This process's heartbeat (as `self`), now and every 10 s, in every process that runs turns (the app, the
 * worker): another process's sweep knows from it that this one's running turns are alive. The first beat (and
 * the marking of dead processes of this host) is written before this resolves. Timers never keep the process
 * alive; failures are logged.
 */
export async function startHeartbeat(self: ProcessIdentity): Promise<void> {
  const heartbeat = async (first: boolean) => {
    try {
      const { db } = await getDatabase();
      await writeHeartbeat(db, self);
      if (first) {
        const dead = await markDeadNeighbours(db, self);
        if (dead.length) log.warn({ instances: dead }, "earlier processes on this host are gone");
      }
    } catch (error) {
      log.error({ err: error }, "heartbeat failed");
    }
  };
  await heartbeat(true);
  setInterval(() => void heartbeat(false), HEARTBEAT_INTERVAL_MS).unref();
}

/** The last step of a graceful shutdown: what this process still runs is recorded as interrupted (logged). */
export async function interruptOwnTurns(db: Database, instanceId: string): Promise<void> {
  try {
    const n = await interruptTurnsOf(db, instanceId);
    if (n) log.warn({ turns: n }, "turns still running at the shutdown deadline were marked interrupted");
  } catch (error) {
    log.error({ err: error }, "could not mark this process's running turns interrupted");
  }
}

/**
 * The maintenance jobs, run once across every instance (by the leader): the interrupted-turn sweep at once and
 * every 10 s; expired cache and counter rows, and dead instances, every minute; the ledger's partitions ahead
 * and the compaction of a finished one hourly; retention and the rollups'
 * reconciliation with the ledger and the ledger archive daily (5, 10 and 15 minutes after taking the lead first). A failure is logged, and
 * the job runs again at its next time.
 */
export function maintenanceJobs(): MaintenanceJob[] {
  return [
    {
      name: "interrupted-turn sweep",
      firstAfterMs: 0,
      everyMs: HEARTBEAT_INTERVAL_MS,
      run: async () => {
        const { db } = await getDatabase();
        const n = await sweepInterruptedTurns(db);
        if (n) log.warn({ turns: n }, "marked turns left running by a stopped process as interrupted");
      },
    },
    {
      name: "expired-row sweep",
      firstAfterMs: 0,
      everyMs: MINUTE,
      run: async () => {
        const { db } = await getDatabase();
        await sweepExpiredPipelineRows(db);
        await sweepRunStarts(db);
        await forgetDeadInstances(db);
      },
    },
    {
      // The ledger's partitions for the periods ahead (db/partitions.ts), and rows the DEFAULT partition caught.
      name: "ledger partitions",
      firstAfterMs: MINUTE,
      everyMs: 60 * MINUTE,
      run: async () => {
        const { db } = await getDatabase();
        const result = await ensurePartitions(db);
        if (result.created.length) log.info(result, "ledger partitions created");
      },
    },
    {
      // The indexes of a partition whose period is over, rebuilt full once (db/partitions.ts compactPartitions);
      // one partition a run, so a run is bounded.
      name: "ledger compaction",
      firstAfterMs: 20 * MINUTE,
      everyMs: 60 * MINUTE,
      run: async () => {
        const result = await runCompactionOnce();
        if (result?.compacted.length) log.info(result, "ledger partitions compacted");
      },
    },
    {
      name: "retention",
      firstAfterMs: 5 * MINUTE,
      everyMs: DAY,
      run: async () => {
        const result = await runRetentionOnce();
        if (result) log.info(result, "retention applied");
      },
    },
    {
      // Off (a no-op) unless ARCHIVE_DIR or ARCHIVE_S3_BUCKET names a target.
      name: "ledger archive",
      firstAfterMs: 15 * MINUTE,
      everyMs: DAY,
      run: async () => {
        const result = await runArchiveOnce(await getDatabase());
        if (result?.months.length || result?.expired) log.info(result, "ledger months archived");
      },
    },
    {
      name: "reconciliation",
      firstAfterMs: 10 * MINUTE,
      everyMs: DAY,
      // Drift is logged at warn level by reconcileRollups itself, line by line.
      run: async () => void (await runReconcileOnce()),
    },
  ];
}

/** Compacts one finished partition unless another instance is doing it right now (then returns null). */
export async function runCompactionOnce(now = new Date()) {
  const handle = await getDatabase();
  return handle.tryAdvisoryLock(COMPACTION_LOCK_ID, () =>
    // PGlite is one session: nothing writes beside the rebuild, and CONCURRENTLY buys nothing.
    // A rebuild of a month's indexes may rightly outlast the statement timeout.
    handle.withoutStatementTimeout((db) =>
      compactPartitions(db, { now, concurrently: handle.kind === "postgres" }),
    ),
  );
}

/** Applies retention unless another instance is doing it right now (then returns null). */
export async function runRetentionOnce() {
  const handle = await getDatabase();
  return handle.tryAdvisoryLock(RETENTION_LOCK_ID, () => applyRetention(handle.db));
}

/**
 * Sets yesterday's and today's (UTC) rollup lines that differ from the ledger to its sums, unless another
 * instance is doing it right now (then returns null).
 */
export async function runReconcileOnce(now = new Date()) {
  const handle = await getDatabase();
  const to = now.toISOString().slice(0, 10);
  const from = new Date(now.getTime() - DAY).toISOString().slice(0, 10);
  return handle.tryAdvisoryLock(RECONCILE_LOCK_ID, () =>
    reconcileRollups(handle.db, { from, to, repair: true, now }),
  );
}
