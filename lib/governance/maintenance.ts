import { getDatabase } from "@/db";
import { log } from "@/lib/log";
import { sweepExpiredPipelineRows } from "@/lib/pipeline/cache-store";
import { sweepInterruptedTurns } from "./ledger";
import { applyRetention } from "./retention";

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
// Any fixed 32-bit number: one instance at a time applies retention.
const RETENTION_LOCK_ID = 727_100_002;

/** The interrupted-turn sweep (and expired cache and counter rows) now and every minute, and retention daily; timers never keep the process alive. */
export function startGovernanceMaintenance(): void {
  const sweep = async () => {
    try {
      const n = await sweepInterruptedTurns((await getDatabase()).db);
      if (n) log.warn({ turns: n }, "marked turns left running by a stopped process as interrupted");
    } catch (error) {
      log.error({ err: error }, "interrupted-turn sweep failed");
    }
    try {
      await sweepExpiredPipelineRows((await getDatabase()).db);
    } catch (error) {
      log.error({ err: error }, "sweep of expired cache entries and counter windows failed");
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
