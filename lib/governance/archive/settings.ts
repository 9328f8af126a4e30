// The archive's settings from the environment, without the storage clients: what the limits screen shows.

/** Days from `ARCHIVE_AFTER_DAYS` (a whole number ≥ 1), or null when it is unset (archiving off by default). */
export function archiveAfterDaysFromEnv(
  env: Record<string, string | undefined> = process.env,
): number | null {
  const raw = env.ARCHIVE_AFTER_DAYS?.trim();
  if (!raw) return null;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 1)
    throw new Error(`ARCHIVE_AFTER_DAYS must be a whole number of days ≥ 1 (got "${raw}")`);
  return n;
}

/**
 * What the limits screen says of the archive: the deployment's hot window (null when unset or not a whole number,
 * which the archive pass itself reports) and whether a target (ARCHIVE_DIR or ARCHIVE_S3_BUCKET) is set.
 */
export function archiveDefaults(env: Record<string, string | undefined> = process.env): {
  defaultDays: number | null;
  configured: boolean;
} {
  let defaultDays: number | null = null;
  try {
    defaultDays = archiveAfterDaysFromEnv(env);
  } catch {
    defaultDays = null;
  }
  return { defaultDays, configured: Boolean(env.ARCHIVE_DIR?.trim() || env.ARCHIVE_S3_BUCKET?.trim()) };
}
