import { type DatabaseHandle, databaseOptionsFromEnv, openDatabase } from "./client";
import { prepareDatabase } from "./migrate";

export type { Database, DatabaseHandle } from "./client";

type Prepare = (handle: DatabaseHandle) => Promise<unknown>;
type Holder = { __tollgateDatabase?: Promise<DatabaseHandle>; __tollgateDatabasePrepare?: Prepare };
// On globalThis, because Next bundles instrumentation and each route separately: one process, one database.
const holder = globalThis as Holder;

/**
 * What runs after the migrations when the process opens its database (start-up passes the demo seed here);
 * call before the first `getDatabase()`.
 */
export function prepareDatabaseWith(prepare: Prepare): void {
  holder.__tollgateDatabasePrepare = prepare;
}

/** The app's database, opened, migrated and prepared (see `prepareDatabaseWith`). */
export function getDatabase(): Promise<DatabaseHandle> {
  holder.__tollgateDatabase ??= startDatabase().catch((error) => {
    holder.__tollgateDatabase = undefined;
    throw error;
  });
  return holder.__tollgateDatabase;
}

export async function getDb() {
  return (await getDatabase()).db;
}

/** Tests install their own database (PGlite in memory or a fresh Postgres database). */
export function setDatabaseForTests(handle: DatabaseHandle | undefined): void {
  holder.__tollgateDatabase = handle ? Promise.resolve(handle) : undefined;
}

async function startDatabase(): Promise<DatabaseHandle> {
  const handle = await openDatabase(databaseOptionsFromEnv());
  await prepareDatabase(handle, { afterMigrations: holder.__tollgateDatabasePrepare });
  return handle;
}
