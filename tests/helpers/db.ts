import postgres from "postgres";
import { type DatabaseHandle, openDatabase } from "@/db/client";
import { migrateDatabase } from "@/db/migrate";

export type TestDbKind = "pglite" | "postgres";

/** Postgres to create throwaway databases on, when the run has one (CI sets DATABASE_URL). */
export const postgresAdminUrl = process.env.TEST_DATABASE_URL || process.env.DATABASE_URL || "";
export const testDbKinds: TestDbKind[] = postgresAdminUrl ? ["pglite", "postgres"] : ["pglite"];

export type TestDatabase = { handle: DatabaseHandle; url?: string; drop(): Promise<void> };

/** A fresh, empty database of the given kind; `drop` removes it (Postgres) or closes it (PGlite, in memory). */
export async function createEmptyDatabase(kind: TestDbKind): Promise<TestDatabase> {
  if (kind === "pglite") {
    const handle = await openDatabase({ kind: "pglite" });
    return { handle, drop: () => handle.close() };
  }
  const name = `tollgate_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = postgres(postgresAdminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const url = withDatabase(postgresAdminUrl, name);
  const handle = await openDatabase({ kind: "postgres", url, max: 4 });
  return {
    handle,
    url,
    async drop() {
      await handle.close();
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

/** A fresh database with every migration applied. */
export async function createMigratedDatabase(kind: TestDbKind): Promise<TestDatabase> {
  const test = await createEmptyDatabase(kind);
  await migrateDatabase(test.handle);
  return test;
}

export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}
