/**
 * Brings an archived ledger month back into the database (rows as they were; the archive objects are kept):
 *   npm run archive:restore -- --tenant <uuid|slug> --month YYYY-MM
 * Exits 2 for wrong arguments, an unknown tenant, or a month with no archive; 1 for anything else.
 */
import { parseArgs } from "node:util";
import { migrateDatabase } from "@/db/migrate";
import {
  archiveTargetFromEnv,
  isMonth,
  RestoreRefused,
  restoreMonth,
  S3Target,
} from "@/lib/governance/archive";
import { runCli, TenantNotFound, tenantIdOf } from "./cli";

const USAGE = "Usage: npm run archive:restore -- --tenant <uuid|slug> --month YYYY-MM";

function refuse(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

let values: { tenant?: string; month?: string };
try {
  values = parseArgs({ options: { tenant: { type: "string" }, month: { type: "string" } } }).values;
} catch (error) {
  refuse(`${USAGE}\n${(error as Error).message}`);
}
if (!values.tenant || !values.month) refuse(`${USAGE}\n--tenant and --month are both required`);
if (!isMonth(values.month)) refuse(`--month must be YYYY-MM (got "${values.month}")`);
const target = archiveTargetFromEnv();
if (!target) refuse("No archive target: set ARCHIVE_DIR or ARCHIVE_S3_BUCKET to where the archives are.");
const { tenant, month } = values;

await runCli(async (handle) => {
  await migrateDatabase(handle);
  try {
    const tenantId = await tenantIdOf(handle.db, tenant);
    const r = await restoreMonth(handle.db, target, { tenantId, month });
    process.stdout.write(
      `${month} of tenant ${tenantId} restored from ${r.location}: ${r.turns} turns, ${r.auditEvents} audit events inserted (rows already present were kept) (${handle.label}).\n`,
    );
  } catch (error) {
    if (!(error instanceof TenantNotFound || error instanceof RestoreRefused)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exitCode = 2;
  } finally {
    if (target instanceof S3Target) target.close();
  }
});
