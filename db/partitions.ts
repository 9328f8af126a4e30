// The ledger's partitions: sys_agent_turn (by started_at) and sys_agent_audit (by created_at) are range-partitioned
// by UTC month (or day, LEDGER_PARTITION_INTERVAL=day). Migration 0022 converted them in place; this module creates
// the periods ahead, moves rows the DEFAULT partition caught into the partition made for them, lists partitions
// with their bounds, and drops one whole (retention: lib/governance/retention.ts).
import "server-only";
import { sql } from "drizzle-orm";
import { type Database, DatabaseUnavailableError, type Executor, rowsOf, sqlState } from "./client";

export type PartitionInterval = "month" | "day";
export type PartitionedTable = "sys_agent_turn" | "sys_agent_audit";

/** Each partitioned table and the column it is partitioned by. */
export const PARTITIONED: readonly { table: PartitionedTable; key: string }[] = [
  { table: "sys_agent_turn", key: "started_at" },
  { table: "sys_agent_audit", key: "created_at" },
];

/** One partition: its range [from, to) (null: unbounded, as the converted legacy table's start), or DEFAULT. */
export type Partition = { name: string; from: Date | null; to: Date | null; isDefault: boolean };

// Any fixed 32-bit number: one session at a time creates or moves partitions.
const PARTITION_LOCK_ID = 727_100_006;
/** The most periods one call creates going back to rehouse the DEFAULT partition's rows (older ones stay there). */
const MAX_BACKFILL = 120;

export function partitionInterval(env: Record<string, string | undefined> = process.env): PartitionInterval {
  const v = env.LEDGER_PARTITION_INTERVAL?.trim().toLowerCase();
  if (!v || v === "month") return "month";
  if (v === "day") return "day";
  throw new DatabaseUnavailableError(
    `LEDGER_PARTITION_INTERVAL must be "month" or "day" (got "${env.LEDGER_PARTITION_INTERVAL}")`,
  );
}

/** How many periods after the current one exist at all times (LEDGER_PARTITIONS_AHEAD, default 2). */
export function partitionsAhead(env: Record<string, string | undefined> = process.env): number {
  const raw = env.LEDGER_PARTITIONS_AHEAD?.trim();
  if (!raw) return 2;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 366)
    throw new DatabaseUnavailableError(
      `LEDGER_PARTITIONS_AHEAD must be a whole number from 1 to 366 (got "${raw}")`,
    );
  return n;
}

/** The UTC period holding `at`: its start, its end and the partition name's suffix (`p2026_12`, `p2026_12_03`). */
export function periodOf(at: Date, interval: PartitionInterval): { from: Date; to: Date; suffix: string } {
  const y = at.getUTCFullYear();
  const m = at.getUTCMonth();
  const pad = (n: number) => String(n).padStart(2, "0");
  if (interval === "month")
    return {
      from: new Date(Date.UTC(y, m, 1)),
      to: new Date(Date.UTC(y, m + 1, 1)),
      suffix: `p${y}_${pad(m + 1)}`,
    };
  const d = at.getUTCDate();
  return {
    from: new Date(Date.UTC(y, m, d)),
    to: new Date(Date.UTC(y, m, d + 1)),
    suffix: `p${y}_${pad(m + 1)}_${pad(d)}`,
  };
}

/** The table's partitions, oldest first (DEFAULT last); empty when the table is not partitioned. */
export async function listPartitions(db: Executor, table: PartitionedTable): Promise<Partition[]> {
  // The bounds are read back as timestamptz by casting the literal PostgreSQL printed, in the same session, so
  // the session's time zone cannot shift them.
  const rows = rowsOf<{ name: string; bound: string; from: string | Date | null; to: string | Date | null }>(
    await db.execute(sql`
      select name, bound,
        case when m[1] is null or m[1] = 'MINVALUE' then null else btrim(m[1], '''')::timestamptz end as "from",
        case when m[2] is null or m[2] = 'MAXVALUE' then null else btrim(m[2], '''')::timestamptz end as "to"
      from (select c.relname::text as name, pg_get_expr(c.relpartbound, c.oid) as bound,
                   regexp_match(pg_get_expr(c.relpartbound, c.oid), 'FROM \\((.+)\\) TO \\((.+)\\)') as m
            from pg_inherits i join pg_class c on c.oid = i.inhrelid
            where i.inhparent = to_regclass(${table})) p`),
  );
  const at = (v: string | Date | null) => (v == null ? null : new Date(v));
  return rows
    .map((r) => ({ name: r.name, from: at(r.from), to: at(r.to), isDefault: r.bound === "DEFAULT" }))
    .sort((a, b) =>
      a.isDefault !== b.isDefault
        ? a.isDefault
          ? 1
          : -1
        : (a.from?.getTime() ?? -Infinity) - (b.from?.getTime() ?? -Infinity),
    );
}

const overlaps = (p: Partition, from: Date, to: Date) =>
  !p.isDefault && (p.from === null || p.from < to) && (p.to === null || p.to > from);

export type EnsureResult = { created: string[]; moved: number };

/**
 * Makes sure every period from the current one to `ahead` after it has its partition, in both tables, and gives
 * rows the DEFAULT partition caught (a seeded or restored past month, a clock far ahead) a partition of their
 * own when their period is at most `MAX_BACKFILL` periods back (and not after the last period ahead). A period
 * that overlaps an existing partition (the legacy one, or one of another interval after the setting changed)
 * is split into days, and the days still uncovered are created. `from` asks for the periods from that time on
 * as well (at most `MAX_BACKFILL` of them). Safe to run from several processes at once.
 */
export async function ensurePartitions(
  db: Database,
  opts: { now?: Date; interval?: PartitionInterval; ahead?: number; from?: Date } = {},
): Promise<EnsureResult> {
  const now = opts.now ?? new Date();
  const interval = opts.interval ?? partitionInterval();
  const ahead = opts.ahead ?? partitionsAhead();
  const result: EnsureResult = { created: [], moved: 0 };
  for (const { table, key } of PARTITIONED) {
    const existing = await listPartitions(db, table);
    if (!existing.length) continue;
    const periods: { from: Date; to: Date; suffix: string }[] = [];
    let p = periodOf(now, interval);
    const current = p.from;
    for (let i = 0; i <= ahead; i++, p = periodOf(p.to, interval)) periods.push(p);
    const lastEnd = p.from;
    // Asked for (a bulk load of history): the periods from `from` on, so its rows go straight to their own.
    if (opts.from)
      for (
        let q = periodOf(opts.from, interval), i = 0;
        i < MAX_BACKFILL && q.from < current;
        i++, q = periodOf(q.to, interval)
      )
        periods.push(q);
    const dflt = existing.find((x) => x.isDefault);
    if (dflt) {
      const [oldest] = rowsOf<{ at: string | Date | null }>(
        await db.execute(sql`select min(${sql.identifier(key)}) as at from ${sql.identifier(dflt.name)}
          where ${sql.identifier(key)} < ${lastEnd.toISOString()}::timestamptz`),
      );
      if (oldest?.at) {
        let q = periodOf(new Date(oldest.at), interval);
        for (let i = 0; i < MAX_BACKFILL && q.from < current; i++, q = periodOf(q.to, interval))
          periods.push(q);
      }
    }
    for (const period of periods) {
      const known = await listPartitions(db, table);
      if (!known.some((x) => overlaps(x, period.from, period.to))) {
        result.moved += await createPartition(db, table, key, period, result.created);
      } else if (interval === "month") {
        for (let d = periodOf(period.from, "day"); d.from < period.to; d = periodOf(d.to, "day"))
          if (!known.some((x) => overlaps(x, d.from, d.to)))
            result.moved += await createPartition(db, table, key, d, result.created);
      }
    }
  }
  return result;
}

/**
 * Creates the partition for [from, to) without the lock CREATE TABLE … PARTITION OF takes on the parent: a
 * table like it, filled with the rows the DEFAULT partition holds for that range (moved, in the same
 * transaction), then attached. Answers how many rows moved.
 */
async function createPartition(
  db: Database,
  table: PartitionedTable,
  key: string,
  period: { from: Date; to: Date; suffix: string },
  created: string[],
): Promise<number> {
  const name = `${table}_${period.suffix}`;
  const from = period.from.toISOString();
  const to = period.to.toISOString();
  return db.transaction(async (tx) => {
    // Moving a busy default partition's rows, or waiting behind another instance doing it, may outlast the
    // connection's statement timeout; lock_timeout below still bounds the wait for the ledger's lock.
    await tx.execute(sql.raw("set local statement_timeout = 0"));
    await tx.execute(sql`select pg_advisory_xact_lock(${PARTITION_LOCK_ID})`);
    // Attaching waits for no write (its lock on the ledger allows them), but a schema change or a detach ahead of
    // it would hold it up: give up after 10 s, and the next run (hourly, and every start) tries again.
    await tx.execute(sql.raw("set local lock_timeout = 10000"));
    // Another session may have made it while this one waited.
    const again = await listPartitions(tx, table);
    if (again.some((x) => overlaps(x, period.from, period.to))) return 0;
    const dflt = again.find((x) => x.isDefault);
    await tx.execute(
      sql.raw(
        `create table "${name}" (like "${table}" including defaults including storage including compression)`,
      ),
    );
    let moved = 0;
    if (dflt) {
      const res = rowsOf<{ n: number }>(
        await tx.execute(sql`with gone as (
            delete from ${sql.identifier(dflt.name)}
            where ${sql.identifier(key)} >= ${from}::timestamptz and ${sql.identifier(key)} < ${to}::timestamptz
            returning *),
          put as (insert into ${sql.identifier(name)} select * from gone returning 1)
          select count(*)::int as n from put`),
      );
      moved = Number(res[0]?.n ?? 0);
    }
    await tx.execute(
      sql.raw(`alter table "${table}" attach partition "${name}" for values from ('${from}') to ('${to}')`),
    );
    created.push(name);
    return moved;
  });
}

/**
 * Drops one partition whole (retention). Detaching takes the parent's exclusive lock for an instant; waiting
 * for it behind a long read would queue every ledger write behind the wait, so each try gives up after
 * `lockTimeoutMs` (SQLSTATE 55P03) and tries again after a pause, `tries` times, then throws (retention fails,
 * is logged, and runs again next time; nothing was changed).
 */
export async function dropPartition(
  db: Database,
  table: PartitionedTable,
  name: string,
  opts: { lockTimeoutMs?: number; tries?: number } = {},
): Promise<void> {
  const tries = opts.tries ?? 5;
  for (let attempt = 1; ; attempt++) {
    try {
      await db.transaction(async (tx) => {
        // Waiting behind another instance's partition work may outlast the statement timeout.
        await tx.execute(sql.raw("set local statement_timeout = 0"));
        await tx.execute(sql`select pg_advisory_xact_lock(${PARTITION_LOCK_ID})`);
        await tx.execute(
          sql.raw(`set local lock_timeout = ${Math.max(1, Math.round(opts.lockTimeoutMs ?? 2_000))}`),
        );
        const known = await listPartitions(tx, table);
        if (!known.some((p) => p.name === name && !p.isDefault)) return;
        await tx.execute(sql.raw(`alter table "${table}" detach partition "${name}"`));
        await tx.execute(sql.raw(`drop table "${name}"`));
      });
      return;
    } catch (error) {
      if (attempt >= tries || sqlState(error) !== "55P03") throw error;
      await new Promise((resolve) => setTimeout(resolve, 1_000 * attempt));
    }
  }
}

/** What a compacted partition's comment starts with (the comment says when). */
const COMPACTED = "tollgate: indexes compacted";
/** A period is compacted once it has been over for this long (a turn still running at its end has closed). */
const COMPACT_AFTER_MS = 24 * 3600 * 1000;

export type CompactResult = { compacted: string[] };

/**
 * Rebuilds the indexes of partitions whose period is over, once each (`REINDEX TABLE CONCURRENTLY`: writes go on
 * meanwhile). Written in time order, an index led by the tenant (or the tenant and model) grows by splitting pages
 * in half wherever a tenant's run ends, so its pages stay about half full; built in one pass from rows that no
 * longer change, they are full: 249 → 180 bytes a turn of ledger indexes, 213 → 196 an audit event (measured,
 * docs/guides/governance.md#row-size). At most `limit` partitions a call, the newest finished first, so one run
 * of the job is bounded; a partition is marked done with a comment, which goes with it when it is dropped. A rebuild that
 * failed midway leaves an invalid copy of an index (`…_ccnew`), dropped before the next try.
 */
export async function compactPartitions(
  db: Database,
  opts: { now?: Date; limit?: number; concurrently?: boolean } = {},
): Promise<CompactResult> {
  const now = opts.now ?? new Date();
  const limit = opts.limit ?? 1;
  const concurrently = opts.concurrently ?? true;
  const compacted: string[] = [];
  // Newest first: the oldest are the next that retention or the archive removes, so compacting them first
  // would be the most likely wasted; on a tie, the ledger (read by every page) before the audit trail.
  const finished: { name: string; to: number; order: number }[] = [];
  for (const [order, { table }] of PARTITIONED.entries())
    for (const p of await listPartitions(db, table))
      if (!p.isDefault && p.to && p.to.getTime() + COMPACT_AFTER_MS <= now.getTime())
        finished.push({ name: p.name, to: p.to.getTime(), order });
  const due = finished.sort((a, b) => b.to - a.to || a.order - b.order).map((p) => p.name);
  if (!due.length) return { compacted };
  const marks = new Map(
    rowsOf<{ name: string; note: string | null }>(
      await db.execute(sql`select c.relname::text as name, obj_description(c.oid, 'pg_class') as note
        from pg_class c where c.relname in (${sql.join(
          due.map((n) => sql`${n}`),
          sql`, `,
        )})`),
    ).map((r) => [r.name, r.note]),
  );
  for (const name of due) {
    if (compacted.length >= limit) break;
    if (marks.get(name)?.startsWith(COMPACTED)) continue;
    const leftovers = rowsOf<{ index: string }>(
      await db.execute(sql`select i.indexrelid::regclass::text as index from pg_index i
        where i.indrelid = to_regclass(${name}) and not i.indisvalid`),
    );
    for (const { index } of leftovers) await db.execute(sql.raw(`drop index if exists ${index}`));
    await db.execute(sql.raw(`reindex table ${concurrently ? "concurrently " : ""}"${name}"`));
    await db.execute(sql.raw(`comment on table "${name}" is '${COMPACTED} ${now.toISOString()}'`));
    compacted.push(name);
  }
  return { compacted };
}
