/**
 * Compares the daily rollups with the ledger and sets drifting lines to the ledger's sums:
 *   npm run reconcile -- [--from 2026-11-01] [--to 2026-11-30] [--tenant <uuid|slug>] [--dry-run]
 * The range is UTC days, by default the last 7 (today included). Prints each drifting line with
 * before → after per column, then a totals line; repairs are also logged and kept in the admin-change log.
 */
import { parseArgs } from "node:util";
import { migrateDatabase } from "@/db/migrate";
import { checkRange, type DriftLine, reconcileRollups } from "@/lib/governance/reconcile";
import { runCli, tenantIdOf } from "./cli";

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

await runCli(async (handle) => {
  const { values } = parseArgs({
    options: {
      from: { type: "string" },
      to: { type: "string" },
      tenant: { type: "string" },
      "dry-run": { type: "boolean", default: false },
    },
  });
  const to = values.to ?? day(Date.now());
  const from = values.from ?? day(Date.parse(`${to}T00:00:00Z`) - 6 * 86_400_000);
  // Checked before the database is touched, so a typo costs nothing.
  checkRange(from, to);
  await migrateDatabase(handle);
  const tenantId = values.tenant === undefined ? undefined : await tenantIdOf(handle.db, values.tenant);
  const repair = !values["dry-run"];
  const { lines } = await reconcileRollups(handle.db, { from, to, tenantId, repair });
  for (const line of lines) process.stdout.write(`${driftText(line)}\n`);
  const verb = repair ? "repaired" : "would repair (dry run)";
  process.stdout.write(
    `${from}..${to}: ${lines.length} rollup line${lines.length === 1 ? "" : "s"} differed from the ledger; ${
      lines.length ? `${verb} ${lines.length}` : "nothing to repair"
    } (${handle.label}).\n`,
  );
});

function driftText({ key, columns }: DriftLine): string {
  const changes = Object.entries(columns)
    .map(([column, v]) => `${column} ${v.rollup} → ${v.ledger}`)
    .join(", ");
  return `${key.day} tenant ${key.tenantId} user ${key.userId} ${key.source} ${key.servedAdapter}/${key.servedModel}: ${changes}`;
}
