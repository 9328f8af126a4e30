import { getDatabase } from "@/db";
import { DatabaseUnavailableError } from "@/db/client";
import { migrationStatus } from "@/db/migrate";
import { log } from "@/lib/log";

/** Opens the database at start; a database we cannot use stops the process with one line that says why. */
export async function startServer(): Promise<void> {
  try {
    const handle = await getDatabase();
    const migration = await migrationStatus(handle);
    log.info({ database: handle.label, migration }, "tollgate ready");
  } catch (error) {
    const reason =
      error instanceof DatabaseUnavailableError
        ? error.message
        : `database start-up failed: ${String(error)}`;
    process.stderr.write(`Tollgate cannot start: ${reason}\n`);
    process.exit(1);
  }
}
