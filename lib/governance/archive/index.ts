import "server-only";
import type { DatabaseHandle } from "@/db";
import { applyRetention } from "../retention";
import { type ArchiveResult, archiveLedger } from "./archiver";
import { archiveAfterDaysFromEnv, archiveTargetFromEnv, S3Target } from "./target";

export { type ArchivedMonth, type ArchiveResult, archiveLedger } from "./archiver";
export { isMonth, monthOfUuidV7 } from "./month";
export { RestoreRefused, type RestoreResult, restoreMonth } from "./restore";
export { type ArchiveTarget, archiveTargetFromEnv, DirectoryTarget, S3Target } from "./target";

// Any fixed 32-bit number: one instance at a time archives.
const ARCHIVE_LOCK_ID = 727_100_011;

/**
 * One archive pass with the environment's target and default hot window: retention first (so a month it would
 * delete is never archived), then the archiver. Null when no target is configured (archiving off) or another
 * instance is archiving right now.
 */
export async function runArchiveOnce(
  handle: DatabaseHandle,
  env: Record<string, string | undefined> = process.env,
  opts: { tenantId?: string } = {},
): Promise<ArchiveResult | null> {
  const target = archiveTargetFromEnv(env);
  if (!target) return null;
  const defaultAfterDays = archiveAfterDaysFromEnv(env);
  try {
    return await handle.tryAdvisoryLock(ARCHIVE_LOCK_ID, async () => {
      await applyRetention(handle.db);
      return archiveLedger(handle.db, target, { defaultAfterDays, tenantId: opts.tenantId });
    });
  } finally {
    if (target instanceof S3Target) target.close();
  }
}
