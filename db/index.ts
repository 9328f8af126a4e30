import { type DatabaseHandle, databaseOptionsFromEnv, openDatabase } from "./client";
import { prepareDatabase } from "./migrate";

export type { Database, DatabaseHandle } from "./client";

type Holder = { __tollgateDatabase?: Promise<DatabaseHandle> };
// On globalThis, because Next bundles instrumentation and each route separately: one process, one database.
const holder = globalThis as Holder;

/** The app's database, opened, migrated and (when empty and SEED_DEMO is not 0) seeded with the demo data. */
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
  await prepareDatabase(handle, {
    seedDemo: process.env.SEED_DEMO !== "0",
    sampleTurns: Number(process.env.SEED_SAMPLE_TURNS ?? 2000),
  });
  return handle;
}
