import "server-only";
import { getDatabase } from "@/db";
import { log } from "@/lib/core/log";
import { sweepExpiredPipelineRows } from "@/lib/pipeline/cache-store";
import {
  beat,
  forgetDeadInstances,
  HEARTBEAT_INTERVAL_MS,
  markDeadNeighbours,
  type ProcessIdentity,
} from "./instance";
import { sweepInterruptedTurns } from "./ledger";
import { reconcileRollups } from "./reconcile";
import { applyRetention } from "./retention";

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
// Any fixed 32-bit number: one instance at a time applies retention.
const RETENTION_LOCK_ID = 727_100_002;
// One instance at a time reconciles the rollups with the ledger.
const RECONCILE_LOCK_ID = 727_100_003;

/**
 * This process's heartbeat (as `self`) and the interrupted-turn sweep, now and every 10 s; expired cache and counter rows
 * every minute; retention and the rollups' reconciliation with the ledger daily. The first heartbeat is written before this resolves, so no turn of this
 * process can look orphaned to another instance. Timers never keep the process alive; failures are logged.
 */
export async function startGovernanceMaintenance(self: ProcessIdentity): Promise<void> {
  const heartbeat = async (first: boolean) => {
    try {
      const { db } = await getDatabase();
      await beat(db, self);
      if (first) {
        const dead = await markDeadNeighbours(db, self);
        if (dead.length) log.warn({ instances: dead }, "earlier processes on this host are gone");
      }
      const n = await sweepInterruptedTurns(db);
      if (n) log.warn({ turns: n }, "marked turns left running by a stopped process as interrupted");
    } catch (error) {
      log.error({ err: error }, "heartbeat or interrupted-turn sweep failed");
    }
  };
  const sweep = async () => {
    try {
      const { db } = await getDatabase();
      await sweepExpiredPipelineRows(db);
      await forgetDeadInstances(db);
    } catch (error) {
      log.error({ err: error }, "sweep of expired cache entries, counter windows and instances failed");
    }
  };
  const retention = async () => {
    try {
      const result = await runRetentionOnce();
      if (result) log.info(result, "retention applied");
    } catch (error) {
      log.error({ err: error }, "retention failed");
    }
  };
  const reconcile = async () => {
    try {
      // Drift is logged at warn level by reconcileRollups itself, line by line.
      await runReconcileOnce();
    } catch (error) {
      log.error({ err: error }, "reconciliation of the daily rollups with the ledger failed");
    }
  };
  await heartbeat(true);
  setInterval(() => void heartbeat(false), HEARTBEAT_INTERVAL_MS).unref();
  void sweep();
  setInterval(sweep, MINUTE).unref();
  setTimeout(retention, 5 * MINUTE).unref();
  setInterval(retention, DAY).unref();
  setTimeout(reconcile, 10 * MINUTE).unref();
  setInterval(reconcile, DAY).unref();
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
