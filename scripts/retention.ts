/** Applies each tenant's retention to the ledger, the audit trail, the rollups and uploaded files now (conversations are kept). */
import { migrateDatabase } from "@/db/migrate";
import { applyRetention } from "@/lib/governance/retention";
import { runCli } from "./cli";

await runCli(async (handle) => {
  await migrateDatabase(handle);
  const result = await applyRetention(handle.db);
  process.stdout.write(
    `retention applied to ${result.tenants} tenants: ${result.turns} ledger rows, ${result.auditEvents} audit events, ${result.rollupRows} rollup rows, ${result.files} files, ${result.scores} scores, ${result.reviewItems} review items deleted\n`,
  );
});
