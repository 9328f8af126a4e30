import { sql } from "drizzle-orm";
import { ZodError } from "zod";
import type { Database } from "@/db";
import {
  type DatabaseHandle,
  DatabaseUnavailableError,
  databaseOptionsFromEnv,
  openDatabase,
} from "@/db/client";
import { fieldErrors } from "@/lib/core/errors/app-error";

/** Runs a command-line task against the configured database; failures print one line and exit 1. */
export async function runCli(task: (handle: DatabaseHandle) => Promise<void>): Promise<void> {
  let handle: DatabaseHandle | undefined;
  try {
    handle = await openDatabase(databaseOptionsFromEnv());
    await task(handle);
  } catch (error) {
    process.stderr.write(`${oneLine(error)}\n`);
    process.exitCode = 1;
  } finally {
    await handle?.close();
  }
}

function oneLine(error: unknown): string {
  if (error instanceof DatabaseUnavailableError) return `Tollgate cannot start: ${error.message}`;
  if (error instanceof ZodError) {
    return `Invalid input: ${Object.entries(fieldErrors(error))
      .map(([field, problems]) => `${field} ${problems.join(", ")}`)
      .join("; ")}`;
  }
  return `Failed: ${error instanceof Error ? error.message : String(error)}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A tenant given on the command line by id or slug; throws `TenantNotFound` naming what was given. */
export async function tenantIdOf(db: Database, tenant: string): Promise<string> {
  const byId = UUID.test(tenant);
  const result = await db.execute(
    byId
      ? sql`select id::text from tenant where id = ${tenant}::uuid`
      : sql`select id::text from tenant where slug = ${tenant}`,
  );
  const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as { id: string }[];
  if (!rows[0]) throw new TenantNotFound(`no tenant with ${byId ? "id" : "slug"} "${tenant}"`);
  return rows[0].id;
}

export class TenantNotFound extends Error {
  override name = "TenantNotFound";
}
