// The ledger and the audit trail are partitioned by time: a populated database is converted in place (rows and
// chains unchanged), the periods ahead are created and the DEFAULT partition's rows rehoused, and retention drops
// whole partitions, cutting only what is left past each tenant's cutoff by rows, with every chain still intact.
// Runs on PGlite, and on PostgreSQL (two pools racing) when one is configured.
import { rmSync } from "node:fs";
import { eq, sql } from "drizzle-orm";
import { v7 as uuidv7 } from "uuid";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Database } from "@/db";
import { migrateDatabase, migrationsBefore } from "@/db/migrate";
import {
  compactPartitions,
  dropPartition,
  ensurePartitions,
  listPartitions,
  type Partition,
  periodOf,
} from "@/db/partitions";
import { sysAgentAudit, sysAgentAuditChain, sysAgentTurn, tenant } from "@/db/schema";
import { chainAudit, executeTogether } from "@/lib/governance/audit-chain";
import { verifyAuditChains } from "@/lib/governance/audit-verify";
import { applyRetention } from "@/lib/governance/retention";
import { useSeededAppDatabase } from "../helpers/app-db";
import { createEmptyDatabase, type TestDatabase, testDbKinds } from "../helpers/db";

const DAY_MS = 86_400_000;
const rowsOf = <T>(r: unknown) => (Array.isArray(r) ? r : (r as { rows: unknown[] }).rows) as T[];

/** A ledger row at `at` (its id a UUIDv7 of that time, as the recorder mints) and one chained audit event. */
async function turnAt(db: Database, tenantId: string, at: Date, events = 1): Promise<string> {
  const id = uuidv7({ msecs: at.getTime() });
  // Named columns, not the schema's insert: a database migrated only so far lacks the columns added since.
  await db.execute(sql`insert into sys_agent_turn
      (id, tenant_id, source, requested_model, served_model, status, started_at, tags)
    values (${id}, ${tenantId}, 'api', 'default', 'm', 'success', ${at.toISOString()}, array['t']::text[])`);
  const rows = Array.from({ length: events }, (_, i) => ({
    tenantId,
    turnId: id,
    seq: i + 1,
    type: "request" as const,
    payload: { at: at.toISOString(), i },
  }));
  await db.transaction(async (tx) => executeTogether(tx, await chainAudit(tx, rows, at)));
  return id;
}

const names = (parts: Partition[]) => parts.map((p) => p.name);
const where = async (db: Database, table: string, id: string) =>
  rowsOf<{ part: string }>(
    await db.execute(
      sql`select tableoid::regclass::text as part from ${sql.identifier(table)} where id = ${id}`,
    ),
  )[0]?.part;
const month = (d: Date) => periodOf(d, "month").suffix;

describe.each(testDbKinds)("ledger partitions on %s", (kind) => {
  describe("the in-place migration", () => {
    let test: TestDatabase | undefined;
    let dir: string | undefined;
    afterEach(async () => {
      await test?.drop();
      test = undefined;
      if (dir) rmSync(dir, { recursive: true, force: true });
      dir = undefined;
    });

    /** The migrations up to (not including) the one that partitions the ledger. */
    function migrationsBeforePartitions(): string {
      const before = migrationsBefore("_ledger_partitions");
      dir = before.dir;
      return before.dir;
    }

    it("converts a populated ledger in place: the same rows, intact chains, the old table as one partition", async () => {
      test = await createEmptyDatabase(kind);
      const db = test.handle.db;
      await migrateDatabase(test.handle, migrationsBeforePartitions());
      const before = rowsOf<{ relkind: string }>(
        await db.execute(sql`select relkind::text from pg_class where relname = 'sys_agent_turn'`),
      );
      expect(before[0]?.relkind).toBe("r");
      const tenantA = uuidv7();
      const tenantB = uuidv7();
      const now = Date.now();
      for (const days of [95, 64, 40, 33, 20, 3, 0])
        for (const t of [tenantA, tenantB]) await turnAt(db, t, new Date(now - days * DAY_MS - 60_000), 3);
      const snapshot = async () => ({
        turns: rowsOf(await db.execute(sql`select to_jsonb(t) as r from sys_agent_turn t order by id`)),
        audit: rowsOf(await db.execute(sql`select to_jsonb(a) as r from sys_agent_audit a order by id`)),
      });
      const rows = await snapshot();
      expect(rows.turns).toHaveLength(14);
      expect(rows.audit).toHaveLength(42);

      await migrateDatabase(test.handle);
      // Columns added by later migrations (null on old rows) aside, every row is as it was.
      const kept = (after: unknown[], before: unknown[]) =>
        after.map((row, i) => {
          const was = (before[i] as { r: Record<string, unknown> }).r;
          const now = (row as { r: Record<string, unknown> }).r;
          return { r: Object.fromEntries(Object.keys(was).map((k) => [k, now[k]])) };
        });
      const migrated = await snapshot();
      expect({ turns: kept(migrated.turns, rows.turns), audit: kept(migrated.audit, rows.audit) }).toEqual(
        rows,
      );
      for (const table of ["sys_agent_turn", "sys_agent_audit"] as const) {
        const [kindRow] = rowsOf<{ relkind: string }>(
          await db.execute(sql`select relkind::text from pg_class where relname = ${table}`),
        );
        expect(kindRow?.relkind).toBe("p");
        const parts = await listPartitions(db, table);
        const legacy = parts.find((p) => p.name === `${table}_legacy`);
        // Everything up to the first month after the newest row (and after now) is the old table.
        const next = periodOf(periodOf(new Date(), "month").to, "month");
        expect(legacy).toMatchObject({ from: null, to: next.from, isDefault: false });
        expect(names(parts)).toEqual([
          `${table}_legacy`,
          `${table}_${next.suffix}`,
          `${table}_${month(next.to)}`,
          `${table}_${month(periodOf(next.to, "month").to)}`,
          `${table}_default`,
        ]);
      }
      // The primary keys include the partition key; the old unique (turn_id, seq) is a plain index now.
      const keys = rowsOf<{ def: string }>(
        await db.execute(sql`select pg_get_indexdef(indexrelid) as def from pg_index
          where indrelid in ('sys_agent_turn'::regclass, 'sys_agent_audit'::regclass) and indisprimary`),
      ).map((r) => r.def);
      expect(keys.some((d) => d.includes("(id, started_at)"))).toBe(true);
      expect(keys.some((d) => d.includes("(id, created_at)"))).toBe(true);
      for (const t of [tenantA, tenantB]) {
        const all = await verifyAuditChains(db, { tenantId: t });
        expect(all.every((r) => r.breaks.length === 0)).toBe(true);
        expect(all.reduce((n, r) => n + r.checked, 0)).toBe(21);
      }
      // New rows land in the old table until its bound, then in the months after it.
      const later = await turnAt(db, tenantA, new Date());
      expect(await where(db, "sys_agent_turn", later)).toBe("sys_agent_turn_legacy");
      const after = await turnAt(db, tenantA, periodOf(new Date(), "month").to);
      expect(await where(db, "sys_agent_turn", after)).toMatch(/^sys_agent_turn_p\d{4}_\d{2}$/);
      expect(
        await where(
          db,
          "sys_agent_audit",
          rowsOf<{ id: string }>(
            await db.execute(sql`select id from sys_agent_audit where turn_id = ${after}`),
          )[0]!.id,
        ),
      ).toMatch(/^sys_agent_audit_p\d{4}_\d{2}$/);
      // A second run changes nothing.
      await migrateDatabase(test.handle);
      expect(names(await listPartitions(db, "sys_agent_turn"))).toHaveLength(5);
    }, 60_000);

    it("gives an empty database the current month and the next ones, and no legacy partition", async () => {
      test = await createEmptyDatabase(kind);
      await migrateDatabase(test.handle);
      const current = periodOf(new Date(), "month");
      const parts = await listPartitions(test.handle.db, "sys_agent_turn");
      expect(parts[0]).toMatchObject({
        name: `sys_agent_turn_${current.suffix}`,
        from: current.from,
        to: current.to,
      });
      expect(parts.map((p) => p.name)).not.toContain("sys_agent_turn_legacy");
      expect(parts.at(-1)).toMatchObject({ name: "sys_agent_turn_default", isDefault: true });
      const id = await turnAt(test.handle.db, uuidv7(), new Date());
      expect(await where(test.handle.db, "sys_agent_turn", id)).toBe(`sys_agent_turn_${current.suffix}`);
    }, 60_000);
  });

  describe("partitions ahead and retention", () => {
    let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
    let db: Database;
    let other: Database;
    let acme: string;
    let globex: string;

    beforeAll(async () => {
      app = await useSeededAppDatabase(kind);
      db = app.db;
      other = await app.secondPool(2);
      acme = await app.tenantId("acme");
      globex = await app.tenantId("globex");
    });
    afterAll(() => app.close());
    beforeEach(async () => {
      await db.delete(sysAgentAudit);
      await db.delete(sysAgentAuditChain);
      await db.delete(sysAgentTurn);
      await db.update(tenant).set({ retentionDays: 365 });
      // Back to the months the migration made: drop every other partition but DEFAULT.
      const current = periodOf(new Date(), "month");
      for (const table of ["sys_agent_turn", "sys_agent_audit"] as const)
        for (const p of await listPartitions(db, table))
          if (
            !p.isDefault &&
            (p.from! < current.from || p.from! >= periodOf(periodOf(current.to, "month").to, "month").to)
          )
            await db.execute(sql.raw(`drop table "${p.name}"`));
    });

    it("creates the periods ahead once, from two sessions at once, and rehouses what DEFAULT caught", async () => {
      const now = new Date();
      const old = await turnAt(db, acme, new Date(now.getTime() - 70 * DAY_MS));
      const far = await turnAt(db, acme, new Date(now.getTime() + 400 * DAY_MS));
      expect(await where(db, "sys_agent_turn", old)).toBe("sys_agent_turn_default");

      const [a, b] = await Promise.all([ensurePartitions(db, { now }), ensurePartitions(other, { now })]);
      const created = [...a.created, ...b.created];
      expect(new Set(created).size).toBe(created.length);
      // The months from the old row's to the current one's were missing (70 days: two or three of them).
      const oldMonth = month(new Date(now.getTime() - 70 * DAY_MS));
      expect(created).toContain(`sys_agent_turn_${oldMonth}`);
      expect(created).toContain(`sys_agent_audit_${oldMonth}`);
      expect(a.moved + b.moved).toBe(2);
      expect(await where(db, "sys_agent_turn", old)).toBe(`sys_agent_turn_${oldMonth}`);
      // Beyond the last period ahead a row stays in DEFAULT (no partition is made years out for one clock).
      expect(await where(db, "sys_agent_turn", far)).toBe("sys_agent_turn_default");

      // Months later, the next periods are made ahead of them; nothing twice.
      const later = new Date(now.getTime() + 150 * DAY_MS);
      const next = await ensurePartitions(db, { now: later, ahead: 2 });
      expect(next.created).toContain(`sys_agent_turn_${month(later)}`);
      expect((await ensurePartitions(db, { now: later, ahead: 2 })).created).toEqual([]);
      // No two periods overlap (the months between, where nothing was written, need no partition: DEFAULT would
      // take a row, and the next run give it one).
      const parts = (await listPartitions(db, "sys_agent_turn")).filter((p) => !p.isDefault);
      for (let i = 1; i < parts.length; i++) expect(parts[i]!.from! >= parts[i - 1]!.to!).toBe(true);
    }, 120_000);

    it("makes daily partitions when asked, and fills a month around them with days after the setting changes", async () => {
      const base = periodOf(new Date(Date.now() + 200 * DAY_MS), "month");
      const day = new Date(base.from.getTime() + 10 * DAY_MS);
      const daily = await ensurePartitions(db, { now: day, interval: "day", ahead: 3 });
      const turnDays = daily.created.filter((n) => n.startsWith("sys_agent_turn_"));
      expect(turnDays).toEqual(
        [0, 1, 2, 3].map(
          (i) => `sys_agent_turn_${periodOf(new Date(day.getTime() + i * DAY_MS), "day").suffix}`,
        ),
      );
      // Monthly again: the month already holding four days gets its other days, one by one.
      const monthly = await ensurePartitions(db, { now: day, interval: "month", ahead: 1 });
      const parts = (await listPartitions(db, "sys_agent_turn")).filter(
        (p) => !p.isDefault && p.from! >= base.from && p.to! <= base.to,
      );
      const days = (base.to.getTime() - base.from.getTime()) / DAY_MS;
      expect(parts).toHaveLength(days);
      expect(monthly.created).toContain(`sys_agent_turn_${month(base.to)}`);
      const id = await turnAt(db, globex, new Date(base.from.getTime() + 20 * DAY_MS + 3_600_000));
      expect(await where(db, "sys_agent_turn", id)).toBe(
        `sys_agent_turn_${periodOf(new Date(base.from.getTime() + 20 * DAY_MS), "day").suffix}`,
      );
    }, 180_000);

    it("drops the months before every tenant's cutoff whole and cuts the rest by rows, chains intact", async () => {
      const now = new Date();
      await db.update(tenant).set({ retentionDays: 10 });
      await db.update(tenant).set({ retentionDays: 40 }).where(eq(tenant.id, acme));
      const back = [120, 90, 45, 41, 39, 20, 11, 9, 1];
      for (const days of back)
        for (const t of [acme, globex]) await turnAt(db, t, new Date(now.getTime() - days * DAY_MS), 2);
      await ensurePartitions(db, { now });
      expect((await listPartitions(db, "sys_agent_turn")).find((p) => p.isDefault)).toBeTruthy();
      const [inDefault] = rowsOf<{ n: number }>(
        await db.execute(sql`select count(*)::int as n from sys_agent_turn_default`),
      );
      expect(inDefault?.n).toBe(0);

      const cutoff = new Date(
        `${new Date(now.getTime() - 40 * DAY_MS).toISOString().slice(0, 10)}T00:00:00Z`,
      );
      const result = await applyRetention(db, { now, batchSize: 3 });
      const whole = [
        ...(await listPartitions(db, "sys_agent_turn")),
        ...(await listPartitions(db, "sys_agent_audit")),
      ];
      // Every partition that ended by the oldest cutoff is gone; those were dropped, not deleted row by row.
      expect(whole.filter((p) => !p.isDefault && p.to! <= cutoff)).toEqual([]);
      expect(result.partitions.some((n) => n.startsWith("sys_agent_turn_"))).toBe(true);
      expect(result.partitions.some((n) => n.startsWith("sys_agent_audit_"))).toBe(true);
      const kept = async (t: string) =>
        rowsOf<{ days: number }>(
          await db.execute(sql`select round(extract(epoch from (${now.toISOString()}::timestamptz - started_at)) / 86400)::int as days
            from sys_agent_turn where tenant_id = ${t} order by started_at`),
        ).map((r) => r.days);
      expect(await kept(acme)).toEqual([39, 20, 11, 9, 1]);
      expect(await kept(globex)).toEqual([9, 1]);
      // What is left past a cutoff but not in a dropped partition went by rows (acme's 41 and 45 days, if their
      // month is the boundary; globex's 11 to 45 days): the deleted counts say so.
      const droppedTurnRows = back.length * 2 - 7 - result.turns;
      expect(droppedTurnRows).toBeGreaterThanOrEqual(4);
      for (const t of [acme, globex]) {
        const reports = await verifyAuditChains(db, { tenantId: t });
        expect(reports.flatMap((r) => r.breaks)).toEqual([]);
      }
      const [events] = rowsOf<{ n: number }>(
        await db.execute(sql`select count(*)::int as n from sys_agent_audit`),
      );
      expect(events?.n).toBe(7 * 2);
    }, 120_000);

    if (kind === "postgres")
      it("gives up a drop that would wait behind a long read (so writes never queue behind it), then drops it", async () => {
        const later = periodOf(periodOf(periodOf(new Date(), "month").to, "month").to, "month");
        const name = `sys_agent_turn_${later.suffix}`;
        expect(names(await listPartitions(db, "sys_agent_turn"))).toContain(name);
        let failure: unknown;
        await other.transaction(async (tx) => {
          // A reader holding the ledger (a page query that runs long).
          await tx.execute(sql`select count(*) from sys_agent_turn`);
          const t0 = Date.now();
          failure = await dropPartition(db, "sys_agent_turn", name, { lockTimeoutMs: 200, tries: 2 }).catch(
            (e) => e,
          );
          expect(Date.now() - t0).toBeLessThan(5_000);
          // Meanwhile a write goes through (the reader's lock allows it, and the drop is not queued ahead of it).
          await turnAt(db, acme, new Date());
        });
        expect(failure).toBeInstanceOf(Error);
        expect(names(await listPartitions(db, "sys_agent_turn"))).toContain(name);
        await dropPartition(db, "sys_agent_turn", name);
        expect(names(await listPartitions(db, "sys_agent_turn"))).not.toContain(name);
      }, 60_000);

    it("with daily partitions, drops the days of the cutoff's month and moves its chains' starts", async () => {
      // A month no partition covers yet (five ahead), so its days can be made daily.
      let m = periodOf(new Date(), "month");
      for (let i = 0; i < 5; i++) m = periodOf(m.to, "month");
      const now = new Date(m.from.getTime() + 24 * DAY_MS + 12 * 3_600_000);
      await db.update(tenant).set({ retentionDays: 10 });
      // The 5th, 8th and 20th of this month, and yesterday: the first two go with whole daily partitions.
      for (const dayOfMonth of [5, 8, 20, 24])
        await turnAt(db, acme, new Date(now.getTime() - (25 - dayOfMonth) * DAY_MS), 2);
      await ensurePartitions(db, { now: new Date(now.getTime() - 20 * DAY_MS), interval: "day", ahead: 25 });
      const parts = await listPartitions(db, "sys_agent_audit");
      expect(parts.filter((p) => p.name.match(/_p\d{4}_\d{2}_\d{2}$/)).length).toBeGreaterThanOrEqual(20);

      const result = await applyRetention(db, { now, batchSize: 3 });
      // The 5th to the 14th: the days wholly before the cutoff (the 15th), in each table.
      for (const table of ["sys_agent_turn", "sys_agent_audit"])
        expect(
          result.partitions.filter((n) => n.startsWith(table) && /_p\d{4}_\d{2}_\d{2}$/.test(n)),
        ).toHaveLength(10);
      const reports = await verifyAuditChains(db, { tenantId: acme });
      expect(reports.flatMap((r) => r.breaks)).toEqual([]);
      expect(reports.reduce((n, r) => n + r.checked, 0)).toBe(4);
      const [head] = await db.select().from(sysAgentAuditChain).where(eq(sysAgentAuditChain.tenantId, acme));
      expect(head).toMatchObject({ seq: 8, startSeq: 4 });
    }, 180_000);

    it("compacts a finished period's indexes once, newest first, and leaves the current one alone", async () => {
      const now = new Date();
      const current = periodOf(now, "month");
      const before = periodOf(new Date(current.from.getTime() - DAY_MS), "month");
      const older = periodOf(new Date(before.from.getTime() - DAY_MS), "month");
      await ensurePartitions(db, { now, ahead: 0, from: older.from });
      for (const p of [older, before])
        for (let i = 0; i < 30; i++)
          await turnAt(db, i % 2 ? acme : globex, new Date(p.from.getTime() + i * 3_600_000));
      await turnAt(db, acme, now);
      const noteOf = async (name: string) =>
        rowsOf<{ note: string | null }>(
          await db.execute(sql`select obj_description(to_regclass(${name}), 'pg_class') as note`),
        )[0]?.note;
      const invalid = async () =>
        Number(
          rowsOf<{ n: number }>(
            await db.execute(sql`select count(*)::int as n from pg_index i join pg_partition_tree('sys_agent_turn') p
              on p.relid = i.indrelid where not i.indisvalid`),
          )[0]?.n,
        );

      const concurrently = kind === "postgres";
      const first = await compactPartitions(db, { now, limit: 1, concurrently });
      // Last month's ledger first (the oldest are the next retention drops), then its audit trail, then older.
      expect(first.compacted).toEqual([`sys_agent_turn_${before.suffix}`]);
      const rest = await compactPartitions(db, { now, limit: 10, concurrently });
      expect(rest.compacted.slice(0, 3)).toEqual([
        `sys_agent_audit_${before.suffix}`,
        `sys_agent_turn_${older.suffix}`,
        `sys_agent_audit_${older.suffix}`,
      ]);
      expect(rest.compacted).not.toContain(`sys_agent_turn_${before.suffix}`);
      for (const name of [...first.compacted, ...rest.compacted])
        expect(await noteOf(name)).toMatch(/^tollgate: indexes compacted /);
      // The current month is still being written: never rebuilt.
      expect(rest.compacted.some((n) => n.endsWith(current.suffix))).toBe(false);
      expect(await noteOf(`sys_agent_turn_${current.suffix}`)).toBeNull();
      expect((await compactPartitions(db, { now, limit: 10, concurrently })).compacted).toEqual([]);
      // The rebuilt indexes are valid, still attached to the ledger's, and answer the queries they did.
      expect(await invalid()).toBe(0);
      const attached = rowsOf<{ n: number }>(
        await db.execute(sql`select count(*)::int as n from pg_partition_tree('sys_agent_turn_tenant_started_idx')
          where relid = to_regclass(${`sys_agent_turn_${older.suffix}_tenant_id_started_at_idx`})`),
      )[0]?.n;
      expect(attached).toBe(1);
      const n = rowsOf<{ n: number }>(
        await db.execute(sql`select count(*)::int as n from sys_agent_turn where tenant_id = ${acme}
          and started_at >= ${older.from.toISOString()}::timestamptz and started_at < ${before.to.toISOString()}::timestamptz`),
      )[0]?.n;
      expect(n).toBe(30);
    }, 120_000);

    it("gives a partition made later the lean indexes and, where the server has lz4, lz4 payloads", async () => {
      const now = new Date();
      const later = new Date(now.getTime() + 150 * DAY_MS);
      // Today's period (the tests before may have dropped it), and one made months later.
      await ensurePartitions(db, { now, ahead: 0 });
      await ensurePartitions(db, { now: later, ahead: 0 });
      const part = `sys_agent_turn_${month(later)}`;
      const defs = rowsOf<{ indexname: string; indexdef: string }>(
        await db.execute(sql`select indexname, indexdef from pg_indexes where tablename = ${part}`),
      );
      const has = (columns: string, where?: string) =>
        defs.some((d) => d.indexdef.endsWith(where ? `(${columns}) WHERE (${where})` : `(${columns})`));
      // Success rows (most of the ledger) are not indexed by status; running turns are indexed alone.
      expect(has("tenant_id, status, started_at", "status <> 'success'::text")).toBe(true);
      expect(has("tenant_id, status, served_model, started_at", "status <> 'success'::text")).toBe(true);
      expect(has("started_at", "status = 'running'::text")).toBe(true);
      expect(has("tenant_id, served_model, started_at")).toBe(true);
      expect(has("tenant_id, status, started_at")).toBe(false);

      const lz4 = rowsOf<{ ok: boolean }>(
        await db.execute(
          sql`select 'lz4' = any(enumvals) as ok from pg_settings where name = 'default_toast_compression'`,
        ),
      )[0]?.ok;
      const compression = async (table: string, column: string) =>
        rowsOf<{ c: string }>(
          await db.execute(
            sql`select attcompression::text as c from pg_attribute where attrelid = ${table}::regclass and attname = ${column}`,
          ),
        )[0]?.c;
      // Today's partition, whichever interval the tests before left it with.
      const current = (await listPartitions(db, "sys_agent_audit")).find(
        (p) => !p.isDefault && p.from! <= now && now < p.to!,
      )!.name;
      for (const table of ["sys_agent_audit", current, `sys_agent_audit_${month(later)}`])
        expect(await compression(table, "payload")).toBe(lz4 ? "l" : "");
      for (const column of ["tool_trace", "request_metadata", "error_message"])
        expect(await compression(part, column)).toBe(lz4 ? "l" : "");

      // A payload large enough to be compressed at all is stored the server's best way.
      const id = await turnAt(db, acme, new Date());
      await db.insert(sysAgentAudit).values({
        tenantId: acme,
        turnId: id,
        seq: 2,
        type: "tool_result",
        payload: { text: "the same line of tool output, again and again; ".repeat(200) },
      });
      const stored = rowsOf<{ c: string | null }>(
        await db.execute(
          sql`select pg_column_compression(payload) as c from sys_agent_audit where turn_id = ${id} and seq = 2`,
        ),
      )[0]?.c;
      expect(stored).toBe(lz4 ? "lz4" : "pglz");
    }, 120_000);
  });
});
