// The ledger archive: tenant-months older than the hot window leave the database for a directory or an S3 bucket
// as gzip'd JSON Lines with a manifest written last, come back byte for byte, survive being interrupted anywhere,
// and never outlive retention.
import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { eq, sql } from "drizzle-orm";
import { v7 as uuidv7 } from "uuid";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Database } from "@/db";
import { openDatabase } from "@/db/client";
import { migrateDatabase } from "@/db/migrate";
import { ledgerArchive, tenant } from "@/db/schema";
import {
  type ArchiveTarget,
  archiveLedger,
  DirectoryTarget,
  restoreMonth,
  S3Target,
} from "@/lib/governance/archive";
import { rowsOf } from "@/lib/governance/archive/format";
import { applyRetention } from "@/lib/governance/retention";
import { startFakeS3 } from "../fakes/s3";
import { runCli } from "../helpers/cli";
import { createMigratedDatabase, type TestDatabase, testDbKinds } from "../helpers/db";

const NOW = new Date("2026-06-10T12:00:00Z");

async function addTenant(db: Database, slug: string, retentionDays: number, archiveAfterDays: number | null) {
  const [row] = await db
    .insert(tenant)
    .values({ name: slug, slug, retentionDays, archiveAfterDays })
    .returning({ id: tenant.id });
  return row!.id;
}

/** A turn with awkward values (exact money, microseconds, jsonb, arrays, unicode, nulls) and three events. */
async function addTurn(db: Database, tenantId: string, at: string, n = 0) {
  const id = uuidv7({ msecs: Date.parse(at) });
  await db.execute(sql`insert into sys_agent_turn (id, tenant_id, source, requested_model, served_model, cost,
      tool_trace, started_at, status, tags, request_metadata, error_message, input_tokens, latency_ms)
    values (${id}::uuid, ${tenantId}::uuid, 'api', 'gpt-x', 'gpt-x', ${`0.00${n}1234567`},
      ${JSON.stringify([{ name: "q", durationMs: 1.5, ok: true }])}::jsonb, ${at}::timestamptz, 'success',
      array['a', ${`b"c,${n}`}]::text[], ${JSON.stringify({ k: "v 雪 😀", n: String(n) })}::jsonb,
      ${n % 2 ? null : 'line\nnext\t"q" \\ end'}, ${100 + n}, null)`);
  for (const seq of [1, 2, 3]) {
    await db.execute(sql`insert into sys_agent_audit (id, tenant_id, turn_id, seq, type, payload, created_at)
      values (${uuidv7({ msecs: Date.parse(at) + seq })}::uuid, ${tenantId}::uuid, ${id}::uuid, ${seq},
        ${seq === 1 ? "request" : "answer"}, ${`{"price": 1.10, "deep": {"a": [1, 2.50, null, "é"]}, "seq": ${seq}}`}::jsonb,
        ${at}::timestamptz + ${`${seq} microseconds`}::interval)`);
  }
  return id;
}

/** Every ledger and audit row of a tenant as PostgreSQL's JSON text, in key order. */
async function snapshot(db: Database, tenantId: string) {
  const turns = rowsOf<{ j: string }>(
    await db.execute(
      sql`select row_to_json(t)::text as j from sys_agent_turn t where tenant_id = ${tenantId}::uuid order by id`,
    ),
  ).map((r) => r.j);
  const audit = rowsOf<{ j: string }>(
    await db.execute(
      sql`select row_to_json(a)::text as j from sys_agent_audit a where tenant_id = ${tenantId}::uuid order by turn_id, seq`,
    ),
  ).map((r) => r.j);
  return { turns, audit };
}

const counts = async (db: Database, tenantId: string) => {
  const s = await snapshot(db, tenantId);
  return { turns: s.turns.length, audit: s.audit.length };
};

describe.each(testDbKinds)("the ledger archive on %s", (kind) => {
  let test: TestDatabase;
  let db: Database;
  let dir: string;
  let target: DirectoryTarget;
  let acme: string;
  let before: Awaited<ReturnType<typeof snapshot>>;

  beforeEach(async () => {
    test = await createMigratedDatabase(kind);
    db = test.handle.db;
    dir = await mkdtemp(path.join(os.tmpdir(), "tollgate-archive-"));
    target = new DirectoryTarget(dir);
    acme = await addTenant(db, "acme", 365, 30);
    await addTurn(db, acme, "2026-01-01T00:00:00.000001Z", 1);
    await addTurn(db, acme, "2026-01-15T10:20:30.123456Z", 2);
    await addTurn(db, acme, "2026-01-31T23:59:59.999999Z", 3);
    await addTurn(db, acme, "2026-02-14T08:00:00.5Z", 4);
    // Hot: its month ends after the cutoff (2026-05-11).
    await addTurn(db, acme, "2026-05-02T09:00:00Z", 5);
    before = await snapshot(db, acme);
  });
  afterEach(async () => {
    await test.drop();
    await rm(dir, { recursive: true, force: true });
  });

  it("archives whole months older than the hot window to a directory, and restores them byte for byte", async () => {
    const result = await archiveLedger(db, target, { now: NOW, batchSize: 2 });
    expect(result.months.map((m) => [m.month, m.turns, m.auditEvents, m.deleted, m.leftover])).toEqual([
      ["2026-01", 3, 9, 12, 0],
      ["2026-02", 1, 3, 4, 0],
    ]);
    expect(await counts(db, acme)).toEqual({ turns: 1, audit: 3 });

    const folder = path.join(dir, acme, "2026-01");
    expect((await readdir(folder)).sort()).toEqual(["audit.jsonl.gz", "manifest.json", "turns.jsonl.gz"]);
    const manifest = JSON.parse(await readFile(path.join(folder, "manifest.json"), "utf8"));
    expect(manifest).toMatchObject({
      format: "tollgate-ledger-archive",
      version: 1,
      tenantId: acme,
      month: "2026-01",
    });
    expect(manifest.files.turns).toMatchObject({
      name: "turns.jsonl.gz",
      rows: 3,
      bytes: (await stat(path.join(folder, "turns.jsonl.gz"))).size,
      minTime: "2026-01-01T00:00:00.000001Z",
      maxTime: "2026-01-31T23:59:59.999999Z",
    });
    expect(manifest.files.turns.columns).toContain("request_metadata");
    const lines = gunzipSync(await readFile(path.join(folder, "turns.jsonl.gz")))
      .toString("utf8")
      .trimEnd()
      .split("\n");
    expect(lines).toEqual(before.turns.slice(0, 3));

    const [record] = await db.select().from(ledgerArchive).where(eq(ledgerArchive.month, "2026-01"));
    expect(record).toMatchObject({ tenantId: acme, turns: 3, auditEvents: 9, restoredAt: null });
    expect(record!.location).toBe(`file://${folder}`);

    for (const month of ["2026-01", "2026-02"]) await restoreMonth(db, target, { tenantId: acme, month });
    expect(await snapshot(db, acme)).toEqual(before);
    // A restored month is left alone by the next pass, and a second restore doubles nothing.
    expect((await archiveLedger(db, target, { now: NOW })).months).toEqual([]);
    await restoreMonth(db, target, { tenantId: acme, month: "2026-01" });
    expect(await snapshot(db, acme)).toEqual(before);
    const [restored] = await db.select().from(ledgerArchive).where(eq(ledgerArchive.month, "2026-01"));
    expect(restored!.restoredAt).toBeInstanceOf(Date);
  });

  it("stopped after the files but before the manifest, writes the month again and loses nothing", async () => {
    await expect(archiveLedger(db, target, { now: NOW, failAt: "before-manifest" })).rejects.toThrow(
      "before the manifest",
    );
    expect((await readdir(path.join(dir, acme, "2026-01"))).sort()).toEqual([
      "audit.jsonl.gz",
      "turns.jsonl.gz",
    ]);
    expect(await db.select().from(ledgerArchive)).toEqual([]);
    expect(await snapshot(db, acme)).toEqual(before);

    await archiveLedger(db, target, { now: NOW });
    expect(await counts(db, acme)).toEqual({ turns: 1, audit: 3 });
    for (const month of ["2026-01", "2026-02"]) await restoreMonth(db, target, { tenantId: acme, month });
    expect(await snapshot(db, acme)).toEqual(before);
  });

  it("stopped mid-delete, finishes the delete from the archive next time and loses nothing, even a changed row", async () => {
    await expect(archiveLedger(db, target, { now: NOW, batchSize: 1, failAt: "mid-delete" })).rejects.toThrow(
      "mid-delete",
    );
    // January's events are gone and one of its turns; the manifest is there, the rest of the month too.
    expect(await counts(db, acme)).toEqual({ turns: 4, audit: 6 });
    // A row that changed since it was archived is not the archive's to delete.
    const changed = before.turns[2]!;
    const changedId = JSON.parse(changed).id as string;
    await db.execute(sql`update sys_agent_turn set status = 'interrupted' where id = ${changedId}::uuid`);

    const again = await archiveLedger(db, target, { now: NOW });
    expect(again.months.map((m) => [m.month, m.deleted, m.leftover])).toEqual([
      ["2026-01", 1, 1],
      ["2026-02", 4, 0],
    ]);
    expect(await counts(db, acme)).toEqual({ turns: 2, audit: 3 });
    await db.execute(sql`update sys_agent_turn set status = 'success' where id = ${changedId}::uuid`);
    for (const month of ["2026-01", "2026-02"]) await restoreMonth(db, target, { tenantId: acme, month });
    expect(await snapshot(db, acme)).toEqual(before);
  });

  it("lets retention win: a month past retention is deleted, not archived, and an archive past it goes too", async () => {
    // Globex keeps 120 days (cutoff 2026-02-10): January is retention's, February is archived.
    const globex = await addTenant(db, "globex", 120, 30);
    await addTurn(db, globex, "2026-01-20T00:00:00Z");
    await addTurn(db, globex, "2026-02-20T00:00:00Z");
    const result = await archiveLedger(db, target, { now: NOW, tenantId: globex });
    expect(result.months.map((m) => m.month)).toEqual(["2026-02"]);
    await applyRetention(db, { now: NOW });
    expect(await counts(db, globex)).toEqual({ turns: 0, audit: 0 });

    // Two months on, February is wholly past retention: its archive is deleted, objects and record.
    const later = new Date("2026-07-15T00:00:00Z");
    const expired = await archiveLedger(db, target, { now: later, tenantId: globex });
    expect(expired.expired).toBe(1);
    expect(await db.select().from(ledgerArchive).where(eq(ledgerArchive.tenantId, globex))).toEqual([]);
    expect(await readdir(path.join(dir, globex, "2026-02"))).toEqual([]);
  });

  it("archives nothing for a tenant without a hot window unless the deployment sets one", async () => {
    await db.update(tenant).set({ archiveAfterDays: null }).where(eq(tenant.id, acme));
    expect((await archiveLedger(db, target, { now: NOW })).months).toEqual([]);
    expect(
      (await archiveLedger(db, target, { now: NOW, defaultAfterDays: 100 })).months.map((m) => m.month),
    ).toEqual(["2026-01", "2026-02"]);
  });
});

describe("the ledger archive in an S3 bucket (s3rver)", () => {
  let s3: Awaited<ReturnType<typeof startFakeS3>>;
  let test: TestDatabase;
  let target: S3Target;

  beforeAll(async () => {
    s3 = await startFakeS3("ledger");
    test = await createMigratedDatabase("pglite");
    target = new S3Target(
      { bucket: "ledger", prefix: "tollgate/archive", endpoint: s3.endpoint, region: "us-east-1" },
      await mkdtemp(path.join(os.tmpdir(), "tollgate-archive-scratch-")),
    );
  });
  afterAll(async () => {
    target?.close();
    await test?.drop();
    await s3?.close();
  });

  it("archives to the bucket, verifies what it reads back, and restores byte for byte", async () => {
    const db = test.handle.db;
    const acme = await addTenant(db, "acme", 365, 30);
    await addTurn(db, acme, "2026-03-03T03:03:03.030303Z", 1);
    await addTurn(db, acme, "2026-03-30T00:00:00Z", 2);
    const before = await snapshot(db, acme);
    const result = await archiveLedger(db, target as ArchiveTarget, { now: NOW });
    expect(result.months.map((m) => [m.month, m.turns, m.auditEvents])).toEqual([["2026-03", 2, 6]]);
    expect(await counts(db, acme)).toEqual({ turns: 0, audit: 0 });
    const [record] = await db.select().from(ledgerArchive);
    expect(record!.location).toBe(`s3://ledger/tollgate/archive/${acme}/2026-03`);
    expect(await target.has(`${acme}/2026-03/manifest.json`)).toBe(true);

    await restoreMonth(db, target, { tenantId: acme, month: "2026-03" });
    expect(await snapshot(db, acme)).toEqual(before);
  });
});

describe("npm run archive and npm run archive:restore", () => {
  let dataDir: string;
  let archiveDir: string;
  const cli = (script: string, ...args: string[]) =>
    runCli(script, args, { PGLITE_DIR: dataDir, ARCHIVE_DIR: archiveDir, ARCHIVE_AFTER_DAYS: "30" });
  // Three months back from today's: wholly past the 30-day window, well inside the default 90-day retention.
  const old = new Date(Date.now() - 75 * 86_400_000);
  const month = old.toISOString().slice(0, 7);
  const other = new Date(Date.UTC(old.getUTCFullYear() - 1, 0, 1)).toISOString().slice(0, 7);
  let before: Awaited<ReturnType<typeof snapshot>>;
  let acme: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), "tollgate-archive-cli-db-"));
    archiveDir = await mkdtemp(path.join(os.tmpdir(), "tollgate-archive-cli-"));
    const handle = await openDatabase({ kind: "pglite", dataDir });
    await migrateDatabase(handle);
    acme = await addTenant(handle.db, "acme", 90, null);
    await addTurn(handle.db, acme, `${month}-10T10:00:00.000123Z`, 1);
    before = await snapshot(handle.db, acme);
    await handle.close();
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
    await rm(archiveDir, { recursive: true, force: true });
  });

  it("refuses bad arguments, an unknown tenant and a month never archived with one line and exit 2", async () => {
    const [noArgs, badMonth, badFlag] = await Promise.all([
      cli("archive-restore"),
      cli("archive-restore", "--tenant", "acme", "--month", "2026-13"),
      cli("archive", "--tenat", "acme"),
    ]);
    expect(noArgs).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^Usage: npm run archive:restore/),
    });
    expect(badMonth).toMatchObject({ code: 2, stderr: '--month must be YYYY-MM (got "2026-13")\n' });
    expect(badFlag).toMatchObject({ code: 2, stderr: expect.stringContaining("Usage: npm run archive") });
    // One PGlite directory takes one process at a time.
    expect(await cli("archive-restore", "--tenant", "no-such-tenant", "--month", month)).toMatchObject({
      code: 2,
      stderr: 'no tenant with slug "no-such-tenant"\n',
    });
    expect(await cli("archive-restore", "--tenant", "acme", "--month", other)).toMatchObject({
      code: 2,
      stderr: `no archive of ${other} for tenant ${acme}\n`,
    });
  }, 120_000);

  it("archives a month by hand and brings it back", async () => {
    const archived = await cli("archive");
    expect(archived).toMatchObject({ code: 0 });
    expect(archived.stdout).toContain(`${acme} ${month}: 1 turns, 3 audit events archived; 4 rows deleted`);
    const restored = await cli("archive-restore", "--tenant", "acme", "--month", month);
    expect(restored).toMatchObject({ code: 0 });
    expect(restored.stdout).toContain("1 turns, 3 audit events inserted");
    const handle = await openDatabase({ kind: "pglite", dataDir });
    try {
      expect(await snapshot(handle.db, acme)).toEqual(before);
    } finally {
      await handle.close();
    }
  }, 120_000);
});
