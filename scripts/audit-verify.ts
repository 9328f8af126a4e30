/**
 * Walks the audit trail's tenant-month hash chains and says, per tenant-month, whether they are intact:
 *   npm run audit:verify -- [--tenant <uuid|slug>] [--from 2026-11-01] [--to 2026-11-30] [--heads]
 * The range picks whole UTC months (a chain is checked from its start); without one, every month is checked.
 * `--heads` prints, instead of the report, one line per tenant-month: tenant id, month, the last event's place
 * in the chain and its hash (tab-separated), for an operator to keep outside the database; problems still go to
 * stderr. Exit 0 when every chain is intact, 1 when one is broken (or the run failed), 2 on bad arguments.
 */
import { parseArgs } from "node:util";
import { migrateDatabase } from "@/db/migrate";
import { BREAK_TEXT, type MonthReport, verifyAuditChains } from "@/lib/governance/audit-verify";
import { checkRange } from "@/lib/governance/reconcile";
import { runCli, tenantIdOf } from "./cli";

const USAGE =
  "usage: npm run audit:verify -- [--tenant <id|slug>] [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--heads]";

/** Bad arguments: one line and exit 2, before the database is opened. */
function refuse(message: string): never {
  process.stderr.write(`${message}\n${USAGE}\n`);
  process.exit(2);
}

let values: { tenant?: string; from?: string; to?: string; heads?: boolean };
try {
  ({ values } = parseArgs({
    options: {
      tenant: { type: "string" },
      from: { type: "string" },
      to: { type: "string" },
      heads: { type: "boolean", default: false },
    },
    strict: true,
    allowPositionals: false,
  }));
} catch (error) {
  refuse(error instanceof Error ? error.message : String(error));
}
try {
  checkRange(values.from ?? "1970-01-01", values.to ?? "9999-12-31");
} catch (error) {
  refuse((error as Error).message);
}

await runCli(async (handle) => {
  await migrateDatabase(handle);
  let tenantId: string | undefined;
  if (values.tenant !== undefined)
    try {
      tenantId = await tenantIdOf(handle.db, values.tenant);
    } catch (error) {
      await handle.close();
      refuse((error as Error).message);
    }
  const reports = await verifyAuditChains(handle.db, { tenantId, from: values.from, to: values.to });
  const broken = reports.filter((r) => r.breaks.length);
  if (values.heads) {
    for (const r of reports)
      if (r.last) process.stdout.write(`${r.tenantId}\t${r.month}\t${r.last.chainSeq}\t${r.last.hash}\n`);
    for (const r of broken) process.stderr.write(`${monthText(r)}\n`);
  } else {
    for (const r of reports) process.stdout.write(`${monthText(r)}\n`);
    const checked = reports.reduce((n, r) => n + r.checked, 0);
    process.stdout.write(
      `${reports.length} tenant-month chain${reports.length === 1 ? "" : "s"}, ${checked} event${checked === 1 ? "" : "s"} checked: ${
        broken.length ? `${broken.length} broken` : "all intact"
      } (${handle.label}).\n`,
    );
  }
  if (broken.length) process.exitCode = 1;
});

function monthText(r: MonthReport): string {
  const head = `tenant ${r.tenantId} ${r.month}: ${r.checked} event${r.checked === 1 ? "" : "s"} checked`;
  const unchained = r.unchained ? `, ${r.unchained} unchained (before hashing)` : "";
  if (!r.breaks.length) return `${head}${unchained}, intact`;
  const breaks = r.breaks
    .slice(0, 20)
    .map((b) =>
      b.eventId
        ? `  broken at event ${b.eventId} (created ${b.createdAt}, turn ${b.turnId}, seq ${b.seq}, chain #${b.chainSeq}): ${BREAK_TEXT[b.reason]}`
        : `  broken at the end (the head records chain #${b.chainSeq}): ${BREAK_TEXT[b.reason]}`,
    );
  const more = r.breaks.length > 20 ? [`  … and ${r.breaks.length - 20} more`] : [];
  return [`${head}${unchained}, BROKEN (${r.breaks.length})`, ...breaks, ...more].join("\n");
}
