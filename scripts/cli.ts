import { ZodError } from "zod";
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
