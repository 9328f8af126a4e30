import "server-only";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import type { DatabaseHandle } from "./client";
import { ensurePartitions } from "./partitions";

export const MIGRATIONS_DIR = path.join(process.cwd(), "db", "migrations");
// Any fixed 32-bit number; every Tollgate process agrees on it.
const MIGRATION_LOCK_ID = 727_100_001;

type Journal = { entries: { idx: number; tag: string; when: number }[] };

export function readJournal(dir = MIGRATIONS_DIR): Journal {
  return JSON.parse(readFileSync(path.join(dir, "meta", "_journal.json"), "utf8")) as Journal;
}

/**
 * Applies the committed drizzle-kit migrations. Idempotent (drizzle records what ran), and safe when several
 * processes start at once: they queue on one advisory lock, and each then finds the work done.
 */
export async function migrateDatabase(handle: DatabaseHandle, dir = MIGRATIONS_DIR): Promise<void> {
  await handle.withAdvisoryLock(MIGRATION_LOCK_ID, () => applyMigrations(handle, dir));
}

/**
 * Start-up preparation: migrations, then `afterMigrations` (the demo seed, when start-up asks for it) under the
 * same lock, so two processes starting together neither race on the schema nor seed twice. `db/` knows nothing
 * of what that step writes.
 */
export async function prepareDatabase<T = void>(
  handle: DatabaseHandle,
  opts: { afterMigrations?: (handle: DatabaseHandle) => Promise<T> } = {},
): Promise<T | undefined> {
  return handle.withAdvisoryLock(MIGRATION_LOCK_ID, async () => {
    await applyMigrations(handle, MIGRATIONS_DIR);
    return opts.afterMigrations ? await opts.afterMigrations(handle) : undefined;
  });
}

async function applyMigrations(handle: DatabaseHandle, dir: string): Promise<void> {
  // A migration may rightly run for minutes (an index on a large ledger): no statement timeout on its connection.
  await handle.withoutStatementTimeout(async (db) => {
    if (handle.kind === "postgres") {
      const { migrate } = await import("drizzle-orm/postgres-js/migrator");
      await migrate(db as never, { migrationsFolder: dir });
    } else {
      const { migrate } = await import("drizzle-orm/pglite/migrator");
      await migrate(db as never, { migrationsFolder: dir });
    }
    // The ledger's partitions for this period and the next ones (db/partitions.ts); a no-op before migration 0022.
    await ensurePartitions(db);
  });
}

export type MigrationStatus = { applied: number; expected: number; latest: string | null };

/** How many migrations the database has applied, against how many this build ships. */
export async function migrationStatus(
  handle: DatabaseHandle,
  dir = MIGRATIONS_DIR,
): Promise<MigrationStatus> {
  const journal = readJournal(dir);
  const result = await handle.db.execute(sql`select count(*)::int as n from drizzle.__drizzle_migrations`);
  const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as { n: number }[];
  const applied = Number(rows[0]?.n ?? 0);
  const latest = applied > 0 ? (journal.entries[applied - 1]?.tag ?? null) : null;
  return { applied, expected: journal.entries.length, latest };
}

/**
 * A copy of the migrations that stops before the one whose tag ends with `tagSuffix` (a database as an older
 * release left it, for the tests and benchmarks of an upgrade): its directory, and `remove` to delete it.
 */
export function migrationsBefore(tagSuffix: string, dir = MIGRATIONS_DIR): { dir: string; remove(): void } {
  const copy = mkdtempSync(path.join(tmpdir(), "tollgate-migrations-"));
  cpSync(dir, copy, { recursive: true });
  const journal = readJournal(copy);
  const at = journal.entries.findIndex((e) => e.tag.endsWith(tagSuffix));
  if (at < 0) throw new Error(`no migration ends with ${tagSuffix}`);
  for (const e of journal.entries.slice(at)) rmSync(path.join(copy, `${e.tag}.sql`));
  journal.entries = journal.entries.slice(0, at);
  writeFileSync(path.join(copy, "meta", "_journal.json"), JSON.stringify(journal));
  return { dir: copy, remove: () => rmSync(copy, { recursive: true, force: true }) };
}
