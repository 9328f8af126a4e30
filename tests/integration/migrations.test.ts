import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { count, sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { DatabaseUnavailableError, openDatabase, rowsOf } from "@/db/client";
import { MIGRATIONS_DIR, migrateDatabase, migrationStatus, readJournal } from "@/db/migrate";
import { appUser, membership, tenant, tenantSsoDomain } from "@/db/schema";
import { DEMO_USERS, seedDemo } from "@/features/demo/server/seed";
import { createEmptyDatabase, type TestDatabase, testDbKinds } from "../helpers/db";

const run = promisify(execFile);
const expected = readJournal().entries.length;

describe.each(testDbKinds)("migrations on %s", (kind) => {
  let test: TestDatabase | undefined;
  afterEach(async () => {
    await test?.drop();
    test = undefined;
  });

  it("apply to an empty database, and a second run changes nothing", async () => {
    test = await createEmptyDatabase(kind);
    await migrateDatabase(test.handle);
    expect(await migrationStatus(test.handle)).toMatchObject({ applied: expected, expected });
    await migrateDatabase(test.handle);
    expect(await migrationStatus(test.handle)).toMatchObject({ applied: expected, expected });
    // The tables exist and are usable.
    const [row] = await test.handle.db.select({ n: count() }).from(tenant);
    expect(row?.n).toBe(0);
  });

  it("seed the demo data once: tenants, accounts and memberships", async () => {
    test = await createEmptyDatabase(kind);
    await migrateDatabase(test.handle);
    expect(await seedDemo(test.handle.db)).toBe(true);
    expect(await seedDemo(test.handle.db)).toBe(false);
    const db = test.handle.db;
    expect((await db.select({ n: count() }).from(tenant))[0]?.n).toBe(2);
    expect((await db.select({ n: count() }).from(appUser))[0]?.n).toBe(DEMO_USERS.length);
    expect((await db.select({ n: count() }).from(membership))[0]?.n).toBe(6);
    // The demo accounts are the operator's: verified, so single sign-on may adopt them (clearing the password).
    expect((await db.select({ v: appUser.emailVerified }).from(appUser)).every((u) => u.v)).toBe(true);
  });
});

/** The committed migrations up to and including `tag`, in a folder of their own. */
function migrationsUpTo(tag: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), "tollgate-migrations-"));
  cpSync(MIGRATIONS_DIR, dir, { recursive: true });
  const journal = readJournal();
  const entries = journal.entries.slice(0, journal.entries.findIndex((e) => e.tag === tag) + 1);
  writeFileSync(path.join(dir, "meta", "_journal.json"), JSON.stringify({ ...journal, entries }));
  return dir;
}

describe.each(testDbKinds)("migration 0018 (account proof) on %s", (kind) => {
  let test: TestDatabase | undefined;
  afterEach(async () => {
    await test?.drop();
    test = undefined;
  });

  it("gives each listed domain to the first tenant that listed it and takes existing accounts as verified", async () => {
    test = await createEmptyDatabase(kind);
    const before = migrationsUpTo("0017_web_fetch_policy");
    try {
      await migrateDatabase(test.handle, before);
    } finally {
      rmSync(before, { recursive: true, force: true });
    }
    const db = test.handle.db;
    await db.execute(sql`insert into tenant (id, name, slug, sso_domains, created_at) values
      ('00000000-0000-7000-8000-000000000001', 'First', 'first', '["corp.test", "Shared.test"]', now() - interval '2 days'),
      ('00000000-0000-7000-8000-000000000002', 'Second', 'second', '["shared.test", "own.test"]', now() - interval '1 day')`);
    await db.execute(
      sql`insert into app_user (id, email, name, password_hash) values ('00000000-0000-7000-8000-0000000000aa', 'old@corp.test', 'Old', 'h')`,
    );

    await migrateDatabase(test.handle);
    const domains = await db
      .select({ domain: tenantSsoDomain.domain, tenantId: tenantSsoDomain.tenantId })
      .from(tenantSsoDomain)
      .orderBy(tenantSsoDomain.domain);
    expect(domains.map((r) => [r.domain, r.tenantId])).toEqual([
      ["corp.test", "00000000-0000-7000-8000-000000000001"],
      ["own.test", "00000000-0000-7000-8000-000000000002"],
      ["shared.test", "00000000-0000-7000-8000-000000000001"],
    ]);
    expect(await db.select({ email: appUser.email, v: appUser.emailVerified }).from(appUser)).toEqual([
      { email: "old@corp.test", v: true },
    ]);
    // New accounts say it themselves: unverified unless whoever makes them says so.
    const [fresh] = await db.insert(appUser).values({ email: "new@corp.test", name: "New" }).returning();
    expect(fresh!.emailVerified).toBe(false);
  });

  it("copies each scored turn's start and served model onto its scores; a score on a run only keeps none", async () => {
    test = await createEmptyDatabase(kind);
    const before = migrationsUpTo("0035_review_queues");
    try {
      await migrateDatabase(test.handle, before);
    } finally {
      rmSync(before, { recursive: true, force: true });
    }
    const db = test.handle.db;
    const [tenantId, turnId] = [
      "00000000-0000-7000-8000-000000000001",
      "00000000-0000-7000-8000-000000000011",
    ];
    await db.execute(sql`insert into tenant (id, name, slug) values (${tenantId}, 'First', 'first')`);
    await db.execute(sql`insert into sys_agent_turn (id, tenant_id, source, requested_model, served_model, run_id,
        status, started_at)
      values (${turnId}, ${tenantId}, 'api', 'fast', 'gpt-x', 'run-1', 'success',
        '2026-11-20T10:00:00Z')`);
    await db.execute(sql`insert into score (id, tenant_id, turn_id, run_id, name, type, value, source) values
      (${crypto.randomUUID()}, ${tenantId}, ${turnId}, 'run-1', 'thumbs', 'boolean', 1, 'human'),
      (${crypto.randomUUID()}, ${tenantId}, null, 'run-1', 'verdict', 'numeric', 0.5, 'api')`);

    await migrateDatabase(test.handle);
    const rows = rowsOf<{ name: string; started: string | null; model: string | null }>(
      await db.execute(sql`select name, to_char(turn_started_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI') as started,
          turn_model as model from score order by name`),
    );
    expect(rows).toEqual([
      { name: "thumbs", started: "2026-11-20 10:00", model: "gpt-x" },
      { name: "verdict", started: null, model: null },
    ]);
  });
});

describe.runIf(testDbKinds.includes("postgres"))("migrations on PostgreSQL from two processes", () => {
  let test: TestDatabase | undefined;
  afterEach(async () => {
    await test?.drop();
    test = undefined;
  });

  it("apply exactly once when two processes start at the same moment", async () => {
    test = await createEmptyDatabase("postgres");
    const env = { ...process.env, DATABASE_URL: test.url!, SEED_DEMO: "1", LOG_LEVEL: "silent" };
    const start = () =>
      run("npx", ["tsx", "--conditions=react-server", "scripts/migrate.ts"], { env, timeout: 60_000 });
    const [a, b] = await Promise.all([start(), start()]);
    expect(a.stdout + b.stdout).toContain(`${expected}/${expected} migrations applied`);
    expect(await migrationStatus(test.handle)).toMatchObject({ applied: expected });
    const result = await test.handle.db.execute(
      sql`select count(*)::int as n from drizzle.__drizzle_migrations`,
    );
    expect((result as unknown as { n: number }[])[0]?.n).toBe(expected);
    // The seed, too, ran once: one demo data set, not two.
    expect((await test.handle.db.select({ n: count() }).from(tenant))[0]?.n).toBe(2);
  }, 90_000);
});

describe("an unusable DATABASE_URL", () => {
  it("is refused with one line naming the problem, not a stack trace", async () => {
    const refused = openDatabase({ kind: "postgres", url: "postgres://tollgate:pw@127.0.0.1:1/none" });
    await expect(refused).rejects.toBeInstanceOf(DatabaseUnavailableError);
    await expect(refused).rejects.toThrow(
      /cannot reach the database at postgres:\/\/tollgate:\*\*\*@127\.0\.0\.1:1\/none/,
    );
    await expect(openDatabase({ kind: "postgres", url: "mysql://x" })).rejects.toThrow(
      /must start with postgres:\/\//,
    );
  });

  it("stops the start-up command with exit 1 and a single line on stderr", async () => {
    const env = { ...process.env, DATABASE_URL: "postgres://postgres@127.0.0.1:1/none" };
    const failed = await run("npx", ["tsx", "--conditions=react-server", "scripts/migrate.ts"], {
      env,
    }).catch((e) => e);
    expect(failed.code).toBe(1);
    expect(failed.stderr.trim().split("\n")).toHaveLength(1);
    expect(failed.stderr).toMatch(/^Tollgate cannot start: cannot reach the database/);
  });
});
