import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { appUser } from "@/db/schema";
import { createSuperAdmin } from "@/lib/auth/admin-users";
import { verifyPassword } from "@/lib/auth/password";
import { isSessionOpen, openSession } from "@/lib/auth/sessions";
import { createMigratedDatabase, type TestDatabase, testDbKinds } from "../helpers/db";

const run = promisify(execFile);

describe.each(testDbKinds)("creating the first super admin on %s", (kind) => {
  let test: TestDatabase | undefined;
  afterEach(async () => {
    await test?.drop();
    test = undefined;
  });

  it("creates a super admin who can sign in with the chosen password, and promotes an existing user", async () => {
    test = await createMigratedDatabase(kind);
    const created = await createSuperAdmin(test.handle.db, {
      email: "ops@example.com",
      name: "Ops",
      password: "a long secret",
    });
    expect(created.created).toBe(true);
    const [row] = await test.handle.db.select().from(appUser).where(eq(appUser.id, created.userId));
    expect(row?.isSuperAdmin).toBe(true);
    expect(row?.emailVerified).toBe(true);
    expect(await verifyPassword("a long secret", row?.passwordHash)).toBe(true);

    const again = await createSuperAdmin(test.handle.db, {
      email: "OPS@example.com",
      name: "Ops",
      password: "another secret",
    });
    expect(again).toEqual({ userId: created.userId, created: false });
  });

  it("promoting an account someone made from an invitation verifies it and ends its sessions", async () => {
    test = await createMigratedDatabase(kind);
    const db = test.handle.db;
    const [made] = await db
      .insert(appUser)
      .values({ email: "ops@example.com", name: "Squatter", passwordHash: "theirs", emailVerified: false })
      .returning();
    const sid = await openSession(db, { userId: made!.id, maxAgeSeconds: 3600 });
    await createSuperAdmin(db, { email: "ops@example.com", name: "Ops", password: "a long secret" });
    const [row] = await db.select().from(appUser).where(eq(appUser.id, made!.id));
    expect(row).toMatchObject({
      emailVerified: true,
      isSuperAdmin: true,
      sessionEpoch: made!.sessionEpoch + 1,
    });
    expect(await isSessionOpen(db, sid, made!.id)).toBe(false);
  });

  it("refuses a weak password or a bad email with the field named", async () => {
    test = await createMigratedDatabase(kind);
    await expect(
      createSuperAdmin(test.handle.db, { email: "ops@example.com", name: "Ops", password: "short" }),
    ).rejects.toThrow(/at least 8/);
    await expect(
      createSuperAdmin(test.handle.db, { email: "nope", name: "Ops", password: "long enough" }),
    ).rejects.toThrow(/email/);
  });
});

describe("the create-admin command", () => {
  it("reads the password from standard input and reports what it did", async () => {
    const child = run(
      "npx",
      [
        "tsx",
        "--conditions=react-server",
        "scripts/create-admin.ts",
        "--email",
        "ops@example.com",
        "--name",
        "Ops",
      ],
      {
        env: { ...process.env, DATABASE_URL: "", PGLITE_DIR: "memory", ADMIN_PASSWORD: "" },
      },
    );
    child.child.stdin?.end("a long secret\n");
    const { stdout } = await child;
    expect(stdout).toMatch(/^Created super admin ops@example.com \(/);
  });
});
