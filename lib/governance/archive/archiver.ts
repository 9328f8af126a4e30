import "server-only";
import { createHash, randomUUID } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { and, eq, sql } from "drizzle-orm";
import type { Database } from "@/db";
import { ledgerArchive, tenant } from "@/db/schema";
import { log } from "@/lib/core/process/log";
import {
  type ArchiveTable,
  AUDIT,
  archivedLines,
  batches,
  columnsOf,
  folderOf,
  MANIFEST,
  MANIFEST_FORMAT,
  MANIFEST_VERSION,
  type Manifest,
  type ManifestFile,
  readManifest,
  rowsOf,
  TABLES,
  TURNS,
  verifyFiles,
  writeTableFile,
} from "./format";
import { lowestUuidAt, monthEnd, monthOf, monthStart, nextMonth } from "./month";
import type { ArchiveTarget } from "./target";

const DAY_MS = 24 * 3600 * 1000;

export type ArchivedMonth = {
  tenantId: string;
  month: string;
  turns: number;
  auditEvents: number;
  /** Rows deleted from the database this run (fewer than archived when an earlier run had deleted some). */
  deleted: number;
  /** Rows of the month still in the database that the archive does not hold as they are (changed or late). */
  leftover: number;
};
export type ArchiveResult = { tenants: number; months: ArchivedMonth[]; expired: number };

export type ArchiveOptions = {
  now?: Date;
  /** The deployment's default hot window (ARCHIVE_AFTER_DAYS); null: only tenants with their own. */
  defaultAfterDays?: number | null;
  /** Only this tenant. */
  tenantId?: string;
  /** Rows per delete (the archive's key order). */
  batchSize?: number;
  /** Tests stop here to prove a run interrupted at this point loses nothing. */
  failAt?: "before-manifest" | "mid-delete";
};

/** The first instant of the UTC day `days` ago: the cutoffs are whole days, as retention's are. */
export const dayCutoff = (now: Date, days: number) =>
  new Date(`${new Date(now.getTime() - days * DAY_MS).toISOString().slice(0, 10)}T00:00:00Z`);

/**
 * Archives each tenant's ledger months (UTC, by the turn's UUIDv7 id; audit events go with their turn) that are
 * wholly older than its hot window (`archive_after_days`, else the default) and not wholly past its retention
 * (those are retention's to delete), then deletes archives whose month is wholly past retention.
 *
 * A month: both tables are written to scratch files, stored and read back (size and sha256) → the manifest is
 * stored last (a folder without one is incomplete and is written again from the database next time) → the month
 * is recorded in ledger_archive → rows are deleted in the archive's key order, in batches, each only if the
 * archive holds it byte for byte. A month whose manifest exists is never written again: its files are checked
 * against the manifest and the delete picks up where it stopped, so a run interrupted anywhere loses nothing.
 */
export async function archiveLedger(
  db: Database,
  target: ArchiveTarget,
  opts: ArchiveOptions = {},
): Promise<ArchiveResult> {
  const now = opts.now ?? new Date();
  const tenants = await db
    .select({ id: tenant.id, afterDays: tenant.archiveAfterDays, retentionDays: tenant.retentionDays })
    .from(tenant)
    .where(opts.tenantId ? eq(tenant.id, opts.tenantId) : undefined);
  const result: ArchiveResult = { tenants: 0, months: [], expired: 0 };
  for (const t of tenants) {
    const retentionCutoff = dayCutoff(now, t.retentionDays);
    result.expired += await deleteExpiredArchives(db, target, t.id, retentionCutoff);
    const afterDays = t.afterDays ?? opts.defaultAfterDays ?? null;
    if (afterDays === null) continue;
    result.tenants++;
    const hotCutoff = dayCutoff(now, afterDays);
    const restored = new Set(
      (
        await db
          .select({ month: ledgerArchive.month })
          .from(ledgerArchive)
          .where(and(eq(ledgerArchive.tenantId, t.id), sql`${ledgerArchive.restoredAt} is not null`))
      ).map((r) => r.month),
    );
    for (const month of await candidateMonths(db, t.id, hotCutoff)) {
      // Retention wins: a month wholly past it is deleted by retention, not archived; one restored by hand stays.
      if (monthEnd(month) <= retentionCutoff || restored.has(month)) continue;
      if (!(await hasRows(db, t.id, month))) continue;
      result.months.push(await archiveMonth(db, target, t.id, month, opts));
    }
  }
  return result;
}

/** Months from the tenant's oldest ledger row to the last one wholly before the cutoff. */
async function candidateMonths(db: Database, tenantId: string, cutoff: Date): Promise<string[]> {
  const [oldest] = rowsOf<{ at: Date | string | null }>(
    await db.execute(sql`select least(
        (select min(started_at) from sys_agent_turn where tenant_id = ${tenantId}::uuid),
        (select min(created_at) from sys_agent_audit where tenant_id = ${tenantId}::uuid)) as at`),
  );
  if (!oldest?.at) return [];
  // A turn's id is minted before its row is stamped: start a month early so a boundary turn is not missed.
  const first = new Date(oldest.at);
  let month = monthOf(new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() - 1, 1)));
  const months: string[] = [];
  while (monthEnd(month) <= cutoff) {
    months.push(month);
    month = nextMonth(month);
  }
  return months;
}

async function hasRows(db: Database, tenantId: string, month: string): Promise<boolean> {
  const lo = lowestUuidAt(monthStart(month));
  const hi = lowestUuidAt(monthEnd(month));
  const [row] = rowsOf<{ any: boolean }>(
    await db.execute(sql`select exists(select 1 from sys_agent_turn where tenant_id = ${tenantId}::uuid
        and id >= ${lo}::uuid and id < ${hi}::uuid)
      or exists(select 1 from sys_agent_audit where tenant_id = ${tenantId}::uuid
        and turn_id >= ${lo}::uuid and turn_id < ${hi}::uuid) as any`),
  );
  return Boolean(row?.any);
}

async function archiveMonth(
  db: Database,
  target: ArchiveTarget,
  tenantId: string,
  month: string,
  opts: ArchiveOptions,
): Promise<ArchivedMonth> {
  const folder = folderOf(tenantId, month);
  let manifest = await readManifest(target, tenantId, month);
  if (manifest) {
    // Written by an earlier run: never rewritten (its rows may be partly deleted); checked before any delete.
    await verifyFiles(target, manifest);
  } else {
    manifest = await writeArchive(db, target, tenantId, month);
    if (opts.failAt === "before-manifest") throw new Error("archive interrupted before the manifest (test)");
    await putJson(target, `${folder}/${MANIFEST}`, manifest);
  }
  const manifestFacts = await target.facts(`${folder}/${MANIFEST}`);
  if (!manifestFacts) throw new Error(`${target.location(`${folder}/${MANIFEST}`)} vanished`);
  const record = {
    tenantId,
    month,
    location: target.location(folder),
    turns: manifest.files.turns.rows,
    auditEvents: manifest.files.audit.rows,
    bytes: manifest.files.turns.bytes + manifest.files.audit.bytes,
    manifestSha256: manifestFacts.sha256,
  };
  await db
    .insert(ledgerArchive)
    .values(record)
    .onConflictDoUpdate({ target: [ledgerArchive.tenantId, ledgerArchive.month], set: record });
  let deleted = 0;
  // Events first: a turn is not gone while its trail is still in the database.
  for (const t of [AUDIT, TURNS]) {
    deleted += await deleteArchivedRows(db, target, t, manifest, opts.batchSize ?? 500, opts.failAt);
  }
  const leftover = await countMonthRows(db, tenantId, month);
  if (leftover)
    log.warn(
      { tenantId, month, rows: leftover },
      "ledger rows of an archived month differ from its archive or came later; they stay in the database",
    );
  return { tenantId, month, turns: record.turns, auditEvents: record.auditEvents, deleted, leftover };
}

async function writeArchive(db: Database, target: ArchiveTarget, tenantId: string, month: string) {
  const folder = folderOf(tenantId, month);
  const files = {} as Manifest["files"];
  for (const t of TABLES) {
    const columns = await columnsOf(db, t.table);
    const { file, facts } = await writeTableFile(db, target, t, tenantId, month);
    const key = `${folder}/${t.file}`;
    await target.put(key, file);
    const stored = await target.facts(key);
    if (!stored || stored.bytes !== facts.bytes || stored.sha256 !== facts.sha256)
      throw new Error(`${target.location(key)} did not read back as written`);
    files[t.kind] = { name: t.file, table: t.table, key: t.key, columns, ...facts } satisfies ManifestFile;
  }
  const manifest: Manifest = {
    format: MANIFEST_FORMAT,
    version: MANIFEST_VERSION,
    tenantId,
    month,
    writtenAt: new Date().toISOString(),
    files,
  };
  return manifest;
}

async function putJson(target: ArchiveTarget, key: string, value: unknown) {
  await mkdir(target.scratchDir(), { recursive: true });
  const file = path.join(target.scratchDir(), `${randomUUID()}.json`);
  const text = `${JSON.stringify(value, null, 2)}\n`;
  await writeFile(file, text);
  await target.put(key, file);
  const stored = await target.facts(key);
  const sha256 = createHash("sha256").update(text).digest("hex");
  if (stored?.sha256 !== sha256) throw new Error(`${target.location(key)} did not read back as written`);
}

/** Deletes, in the archive's order and in batches, the rows the archive holds exactly (same JSON text). */
async function deleteArchivedRows(
  db: Database,
  target: ArchiveTarget,
  t: ArchiveTable,
  manifest: Manifest,
  batchSize: number,
  failAt: ArchiveOptions["failAt"],
): Promise<number> {
  const key = `${folderOf(manifest.tenantId, manifest.month)}/${t.file}`;
  let deleted = 0;
  for await (const batch of batches(archivedLines(target, key), batchSize)) {
    const keys = batch.map((line) => {
      const row = JSON.parse(line) as Record<string, unknown>;
      const h = createHash("sha256").update(line).digest("hex");
      return t.key[1] ? { k1: row[t.key[0]!], k2: row[t.key[1]], h } : { k1: row[t.key[0]!], h };
    });
    const match = t.key[1]
      ? sql`r.${sql.raw(t.key[0]!)} = a.k1 and r.${sql.raw(t.key[1])} = a.k2`
      : sql`r.${sql.raw(t.key[0]!)} = a.k1`;
    const shape = t.key[1] ? sql.raw("k1 uuid, k2 int, h text") : sql.raw("k1 uuid, h text");
    const res = await db.execute(sql`delete from ${sql.raw(t.table)} r
      using json_to_recordset(${JSON.stringify(keys)}::json) as a(${shape})
      where r.tenant_id = ${manifest.tenantId}::uuid and ${match}
        and encode(sha256(convert_to(row_to_json(r)::text, 'UTF8')), 'hex') = a.h`);
    deleted += affected(res);
    if (failAt === "mid-delete" && t === TURNS && deleted > 0)
      throw new Error("archive interrupted mid-delete (test)");
  }
  return deleted;
}

async function countMonthRows(db: Database, tenantId: string, month: string): Promise<number> {
  const lo = lowestUuidAt(monthStart(month));
  const hi = lowestUuidAt(monthEnd(month));
  const [row] = rowsOf<{ n: number | string }>(
    await db.execute(sql`select
      (select count(*) from sys_agent_turn where tenant_id = ${tenantId}::uuid and id >= ${lo}::uuid and id < ${hi}::uuid)
      + (select count(*) from sys_agent_audit where tenant_id = ${tenantId}::uuid
          and turn_id >= ${lo}::uuid and turn_id < ${hi}::uuid) as n`),
  );
  return Number(row?.n ?? 0);
}

/**
 * Retention reaches the archive too: a month wholly past the tenant's retention loses its objects (the manifest
 * first, so what is left, if this stops half-way, reads as incomplete) and its ledger_archive row.
 */
async function deleteExpiredArchives(
  db: Database,
  target: ArchiveTarget,
  tenantId: string,
  retentionCutoff: Date,
): Promise<number> {
  const rows = await db
    .select({ month: ledgerArchive.month })
    .from(ledgerArchive)
    .where(eq(ledgerArchive.tenantId, tenantId));
  let n = 0;
  for (const { month } of rows) {
    if (monthEnd(month) > retentionCutoff) continue;
    const folder = folderOf(tenantId, month);
    for (const name of [MANIFEST, TURNS.file, AUDIT.file]) await target.remove(`${folder}/${name}`);
    await db
      .delete(ledgerArchive)
      .where(and(eq(ledgerArchive.tenantId, tenantId), eq(ledgerArchive.month, month)));
    n++;
  }
  return n;
}

function affected(res: unknown): number {
  const r = res as { count?: number; affectedRows?: number };
  return Number(r.count ?? r.affectedRows ?? 0);
}
