/**
 * One ledger-archive pass now, as the worker runs it daily: retention first, then each tenant's months wholly past
 * its hot window to the archive target (ARCHIVE_DIR or ARCHIVE_S3_BUCKET), then archives past retention deleted.
 *   npm run archive -- [--tenant <uuid|slug>]
 * Exits 2 when no target is configured or the arguments are wrong.
 */
import { parseArgs } from "node:util";
import { migrateDatabase } from "@/db/migrate";
import { archiveTargetFromEnv, runArchiveOnce } from "@/lib/governance/archive";
import { runCli, TenantNotFound, tenantIdOf } from "./cli";

let tenant: string | undefined;
try {
  tenant = parseArgs({ options: { tenant: { type: "string" } } }).values.tenant;
} catch (error) {
  process.stderr.write(`${(error as Error).message}\nUsage: npm run archive -- [--tenant <uuid|slug>]\n`);
  process.exit(2);
}
if (!archiveTargetFromEnv()) {
  process.stderr.write("No archive target: set ARCHIVE_DIR or ARCHIVE_S3_BUCKET (see docs/operating.md).\n");
  process.exit(2);
}

await runCli(async (handle) => {
  await migrateDatabase(handle);
  let tenantId: string | undefined;
  try {
    tenantId = tenant === undefined ? undefined : await tenantIdOf(handle.db, tenant);
  } catch (error) {
    if (!(error instanceof TenantNotFound)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exitCode = 2;
    return;
  }
  const result = await runArchiveOnce(handle, process.env, { tenantId });
  if (!result) throw new Error("another instance is archiving right now");
  for (const m of result.months) {
    process.stdout.write(
      `${m.tenantId} ${m.month}: ${m.turns} turns, ${m.auditEvents} audit events archived; ${m.deleted} rows deleted${
        m.leftover ? `; ${m.leftover} rows differ from the archive and stay in the database` : ""
      }\n`,
    );
  }
  process.stdout.write(
    `${result.months.length} month${result.months.length === 1 ? "" : "s"} archived for ${result.tenants} tenant${
      result.tenants === 1 ? "" : "s"
    } with a hot window; ${result.expired} archive${result.expired === 1 ? "" : "s"} past retention deleted (${handle.label}).\n`,
  );
});
