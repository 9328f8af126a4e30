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
import { applyRetention } from "./retention";

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
// Any fixed 32-bit number: one instance at a time applies retention.
const RETENTION_LOCK_ID = 727_100_002;

/**
 * This process's heartbeat (as `self`) and the interrupted-turn sweep, now and every 10 s; expired cache and counter rows
 * every minute; retention daily. The first heartbeat is written before this resolves, so no turn of this
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
  await heartbeat(true);
  setInterval(() => void heartbeat(false), HEARTBEAT_INTERVAL_MS).unref();
  void sweep();
  setInterval(sweep, MINUTE).unref();
  setTimeout(retention, 5 * MINUTE).unref();
  setInterval(retention, DAY).unref();
}

/** Applies retention unless another instance is doing it right now (then returns null). */
export async function runRetentionOnce() {
  const handle = await getDatabase();
  return handle.tryAdvisoryLock(RETENTION_LOCK_ID, () => applyRetention(handle.db));
}
