import "server-only";
import { and, eq, sql } from "drizzle-orm";
import type { Database } from "@/db";
import { ledgerArchive } from "@/db/schema";
import {
  AUDIT,
  archivedLines,
  batches,
  columnsOf,
  folderOf,
  readManifest,
  TURNS,
  verifyFiles,
} from "./format";
import type { ArchiveTarget } from "./target";

export type RestoreResult = {
  tenantId: string;
  month: string;
  turns: number;
  auditEvents: number;
  location: string;
};

/** Why a restore cannot start: the CLI prints it and exits 2. */
export class RestoreRefused extends Error {
  override name = "RestoreRefused";
}

const IDENT = /^[a-z_][a-z0-9_]*$/;

/**
 * Brings an archived month back: the files are checked against the manifest, then their rows are inserted in
 * batches with json_populate_recordset (PostgreSQL reads its own JSON back, so every value is what it was); a row
 * already there is left as it is, so a restore can be run again. The archive objects are kept; the month's
 * ledger_archive row gets `restored_at`, and the archiver leaves a restored month alone.
 */
export async function restoreMonth(
  db: Database,
  target: ArchiveTarget,
  q: { tenantId: string; month: string; batchSize?: number },
): Promise<RestoreResult> {
  const [record] = await db
    .select()
    .from(ledgerArchive)
    .where(and(eq(ledgerArchive.tenantId, q.tenantId), eq(ledgerArchive.month, q.month)));
  if (!record) throw new RestoreRefused(`no archive of ${q.month} for tenant ${q.tenantId}`);
  const manifest = await readManifest(target, q.tenantId, q.month);
  if (!manifest)
    throw new RestoreRefused(
      `${target.location(folderOf(q.tenantId, q.month))} has no manifest (archive incomplete or elsewhere)`,
    );
  await verifyFiles(target, manifest);
  const inserted = { turns: 0, audit: 0 };
  // Turns first, then their events: the order the ledger writes them in.
  for (const t of [TURNS, AUDIT]) {
    const present = new Set(await columnsOf(db, t.table));
    const columns = manifest.files[t.kind].columns.filter((c) => IDENT.test(c) && present.has(c));
    // Columns added since the archive was written take their defaults.
    const list = sql.raw(columns.map((c) => `"${c}"`).join(", "));
    const key = `${folderOf(q.tenantId, q.month)}/${t.file}`;
    for await (const batch of batches(archivedLines(target, key), q.batchSize ?? 500)) {
      const res = await db.execute(sql`insert into ${sql.raw(t.table)} (${list})
        select ${list} from json_populate_recordset(null::${sql.raw(t.table)}, ${`[${batch.join(",")}]`}::json)
        where tenant_id = ${q.tenantId}::uuid
        on conflict do nothing`);
      inserted[t.kind] += affected(res);
    }
  }
  await db
    .update(ledgerArchive)
    .set({ restoredAt: new Date() })
    .where(and(eq(ledgerArchive.tenantId, q.tenantId), eq(ledgerArchive.month, q.month)));
  return {
    tenantId: q.tenantId,
    month: q.month,
    turns: inserted.turns,
    auditEvents: inserted.audit,
    location: record.location,
  };
}

function affected(res: unknown): number {
  const r = res as { count?: number; affectedRows?: number };
  return Number(r.count ?? r.affectedRows ?? 0);
}
