import "server-only";
import { eq, type SQL, sql } from "drizzle-orm";
import type { Database } from "@/db";
import { dropPartition, listPartitions, PARTITIONED } from "@/db/partitions";
import { tenant } from "@/db/schema";

export type RetentionResult = {
  tenants: number;
  /** Whole partitions dropped (their rows are not counted in `turns` and `auditEvents`). */
  partitions: string[];
  /** Rows deleted one by one: the boundary partition's, and those of tenants keeping less than the longest. */
  turns: number;
  auditEvents: number;
  rollupRows: number;
  /** Files uploaded for the drawer (agent_files). */
  files: number;
  /** Scores (feedback, API and eval scores) and review queue items written before the cutoff. */
  scores: number;
  reviewItems: number;
};

const DAY_MS = 24 * 3600 * 1000;

/** Uploaded files are kept at most `FILE_RETENTION_DAYS` (when set), and never past the tenant's retention. */
export function fileRetentionDays(tenantDays: number, env: Record<string, string | undefined> = process.env) {
  const n = Number(env.FILE_RETENTION_DAYS);
  return env.FILE_RETENTION_DAYS?.trim() && Number.isSafeInteger(n) && n > 0
    ? Math.min(n, tenantDays)
    : tenantDays;
}

/**
 * Deletes ledger rows, audit events and daily rollups of the UTC days wholly before each tenant's retention
 * (the day `retentionDays` ago is kept whole), and uploaded files older than their retention (the same days,
 * or fewer with `FILE_RETENTION_DAYS`). Ledger and audit partitions that end before every tenant's cutoff are
 * dropped whole (seconds at any size, no bloat); what is left past a tenant's cutoff (the partition holding it,
 * a tenant keeping less than the longest retention, the DEFAULT partition) is deleted by rows in small batches
 * (short transactions, no long locks). Conversations and their messages are never touched (a message keeps its
 * file's text and name; a deleted conversation's files went with it).
 */
export async function applyRetention(
  db: Database,
  opts: { now?: Date; batchSize?: number; env?: Record<string, string | undefined> } = {},
): Promise<RetentionResult> {
  const now = opts.now ?? new Date();
  const batch = opts.batchSize ?? 5_000;
  const tenants = await db.select({ id: tenant.id, days: tenant.retentionDays }).from(tenant);
  const result: RetentionResult = {
    tenants: tenants.length,
    partitions: [],
    turns: 0,
    auditEvents: 0,
    rollupRows: 0,
    files: 0,
    scores: 0,
    reviewItems: 0,
  };
  if (tenants.length) {
    const longest = Math.max(...tenants.map((t) => t.days));
    result.partitions = await dropExpiredPartitions(db, cutoffOf(now, longest));
  }
  for (const t of tenants) {
    // Whole UTC days, the rollup's unit: a day is kept or deleted alike in the ledger and in its rollup lines,
    // so what is kept of both still sums up the same (reconcile.ts compares them).
    const cutoffDay = cutoffOf(now, t.days).toISOString().slice(0, 10);
    const at = sql`${`${cutoffDay}T00:00:00Z`}::timestamptz`;
    // `started_at < at` outside as well: the partitions after the cutoff are pruned from the delete.
    result.turns += await deleteInBatches(
      db,
      sql`delete from sys_agent_turn where started_at < ${at} and id in (select id from sys_agent_turn where tenant_id = ${t.id} and started_at < ${at} limit ${batch})`,
      batch,
    );
    result.auditEvents += await deleteInBatches(db, trimAuditChains(t.id, at, batch), batch);
    // Months wholly before the cutoff have no events left: their chain heads go with them.
    await db.execute(
      sql`delete from sys_agent_audit_chain where tenant_id = ${t.id} and month < ${cutoffDay.slice(0, 7)}`,
    );
    result.rollupRows += await deleteInBatches(
      db,
      sql`delete from usage_daily where ctid in (select ctid from usage_daily where tenant_id = ${t.id} and day < ${cutoffDay}::date limit ${batch})`,
      batch,
    );
    // A score or a review item is written after its turn started, so one written before the cutoff is of a turn
    // deleted above: it goes too. (One written since may outlive its turn until its own day passes the cutoff;
    // the pages show such a turn as gone.)
    result.scores += await deleteInBatches(
      db,
      sql`delete from score where ctid in (select ctid from score where tenant_id = ${t.id} and created_at < ${at} limit ${batch})`,
      batch,
    );
    // The scores' daily rollup by the scored turn's day, as the ledger's (deleting scores above took their
    // values out of their lines already; a line of a deleted day goes).
    await deleteInBatches(
      db,
      sql`delete from score_daily where ctid in (select ctid from score_daily where tenant_id = ${t.id} and day < ${cutoffDay}::date limit ${batch})`,
      batch,
    );
    result.reviewItems += await deleteInBatches(
      db,
      sql`delete from review_item where ctid in (select ctid from review_item where tenant_id = ${t.id} and created_at < ${at} limit ${batch})`,
      batch,
    );
    const fileDays = fileRetentionDays(t.days, opts.env);
    const fileCutoff = new Date(now.getTime() - fileDays * DAY_MS).toISOString().slice(0, 10);
    const filesBefore = sql`${`${fileCutoff}T00:00:00Z`}::timestamptz`;
    // Files are large: a smaller batch keeps each delete's transaction short.
    const fileBatch = Math.max(1, Math.min(batch, 100));
    result.files += await deleteInBatches(
      db,
      sql`delete from agent_files where id in (select id from agent_files where tenant_id = ${t.id} and created_at < ${filesBefore} limit ${fileBatch})`,
      fileBatch,
    );
  }
  return result;
}

/**
 * Deletes a batch of the tenant's audit events before `at`, and moves the start of each tenant-month chain it
 * cut past the last event deleted (its place and hash), so the kept part of the chain still verifies from there.
 * Events before the cutoff are a prefix of their chain (created_at never goes back along it). Answers the
 * deleted count as `n`.
 */
const trimAuditChains = (tenantId: string, at: SQL, batch: number) => sql`
  with gone as (
    delete from sys_agent_audit where created_at < ${at} and id in (
      select id from sys_agent_audit where tenant_id = ${tenantId} and created_at < ${at} limit ${batch})
    returning tenant_id, created_at, chain_seq, hash),
  cut as (
    select distinct on (tenant_id, month) tenant_id, month, chain_seq, hash
    from (select tenant_id, to_char(created_at at time zone 'UTC', 'YYYY-MM') as month, chain_seq, hash
          from gone where hash is not null) g
    order by tenant_id, month, chain_seq desc),
  moved as (
    update sys_agent_audit_chain c set start_seq = cut.chain_seq, start_hash = cut.hash
    from cut where c.tenant_id = cut.tenant_id and c.month = cut.month and c.start_seq < cut.chain_seq
    returning 1)
  select count(*)::int as n from gone`;

/** The start of the UTC day `days` before `now`: rows before it are past a retention of `days`. */
function cutoffOf(now: Date, days: number): Date {
  return new Date(`${new Date(now.getTime() - days * DAY_MS).toISOString().slice(0, 10)}T00:00:00Z`);
}

/**
 * Drops the ledger and audit partitions that end at or before `cutoff` (the oldest tenant cutoff: every row in
 * them is past its tenant's retention). An audit partition of part of a month (daily partitions) first moves
 * the start of each tenant-month chain it holds past its last event, as deleting rows does; a chain whose
 * month is wholly gone is deleted with the tenant's retention below.
 */
async function dropExpiredPartitions(db: Database, cutoff: Date): Promise<string[]> {
  const dropped: string[] = [];
  const cutoffMonth = cutoff.toISOString().slice(0, 7);
  for (const { table } of PARTITIONED) {
    for (const p of await listPartitions(db, table)) {
      if (p.isDefault || !p.to || p.to > cutoff) continue;
      if (table === "sys_agent_audit" && p.from && p.from.toISOString().slice(0, 7) === cutoffMonth)
        await db.execute(sql`
          update sys_agent_audit_chain c set start_seq = g.chain_seq, start_hash = g.hash
          from (select distinct on (tenant_id, month) tenant_id, month, chain_seq, hash
                from (select tenant_id, to_char(created_at at time zone 'UTC', 'YYYY-MM') as month, chain_seq, hash
                      from ${sql.identifier(p.name)} where hash is not null) e
                order by tenant_id, month, chain_seq desc) g
          where c.tenant_id = g.tenant_id and c.month = g.month and c.start_seq < g.chain_seq`);
      await dropPartition(db, table, p.name);
      dropped.push(p.name);
    }
  }
  return dropped;
}

async function deleteInBatches(
  db: Database,
  statement: ReturnType<typeof sql>,
  batch: number,
): Promise<number> {
  let total = 0;
  for (;;) {
    const res = await db.execute(statement);
    const n = affected(res);
    total += n;
    if (n < batch) return total;
  }
}

/** Rows deleted, whichever driver answered (postgres-js: count; PGlite: affectedRows), or counted as `n`. */
function affected(res: unknown): number {
  const rows = (Array.isArray(res) ? res : (res as { rows?: unknown[] }).rows) as
    | { n?: number }[]
    | undefined;
  if (rows?.[0] && typeof rows[0].n === "number") return rows[0].n;
  const r = res as { count?: number; affectedRows?: number };
  return Number(r.count ?? r.affectedRows ?? 0);
}

export async function setRetentionDays(db: Database, tenantId: string, days: number): Promise<void> {
  if (!Number.isInteger(days) || days < 1 || days > 3650)
    throw new Error("retention must be a whole number of days from 1 to 3650");
  await db.update(tenant).set({ retentionDays: days }).where(eq(tenant.id, tenantId));
}
