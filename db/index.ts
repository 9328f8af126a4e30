import "server-only";
import { type DatabaseHandle, databaseOptionsFromEnv, openDatabase } from "./client";
import { prepareDatabase } from "./migrate";

export type { Database, DatabaseHandle, Executor, HeldLock } from "./client";

/** Where the process's database comes from: opened once by whoever installed it, the same handle every call. */
export type DatabaseSource = () => Promise<DatabaseHandle>;

// The one anchor db/ keeps: Next bundles instrumentation and each route separately, and all of them share a handle.
const ANCHOR = Symbol.for("tollgate.database");
const anchor = globalThis as { [ANCHOR]?: DatabaseSource };

/** Installs the process's database (the composition root does at start-up; a test harness installs its own). */
export function installDatabase(source: DatabaseSource | undefined): void {
  anchor[ANCHOR] = source;
}

/** The process's database, from the installed source (see `installDatabase`). */
export function getDatabase(): Promise<DatabaseHandle> {
  const source = anchor[ANCHOR];
  if (!source)
    return Promise.reject(new Error("no database installed (start-up or a test harness installs it)"));
  return source();
}

export async function getDb() {
  return (await getDatabase()).db;
}

/**
 * Opens the database the environment names (DATABASE_URL, else embedded PGlite), migrates it, then runs
 * `afterMigrations` under the migrations' lock (start-up passes the demo seed; db/ knows nothing of it).
 */
export async function openAppDatabase(
  afterMigrations?: (handle: DatabaseHandle) => Promise<unknown>,
): Promise<DatabaseHandle> {
  const handle = await openDatabase(databaseOptionsFromEnv());
  await prepareDatabase(handle, { afterMigrations });
  return handle;
}
