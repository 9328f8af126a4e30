import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { count, sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { DatabaseUnavailableError, openDatabase } from "@/db/client";
import { migrateDatabase, migrationStatus, readJournal } from "@/db/migrate";
import { appUser, membership, tenant } from "@/db/schema";
import { DEMO_USERS, seedDemo } from "@/lib/demo/seed";
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
