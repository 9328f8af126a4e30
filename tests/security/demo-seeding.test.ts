import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { installDatabase } from "@/db";
import { appUser } from "@/db/schema";
import {
  demoAccountsExist,
  demoEnabled,
  demoFromEnv,
  demoHintShown,
  resetDemoHint,
  warnIfDemoPasswordsRemain,
} from "@/features/demo/server";
import { seedDemo } from "@/features/demo/server/seed";
import { hashPassword } from "@/lib/auth/password";
import { createMigratedDatabase, type TestDatabase, testDbKinds } from "../helpers/db";

/** An environment as the tests write it (Next types NODE_ENV as always present). */
const asEnv = (env: Record<string, string>) => env as unknown as NodeJS.ProcessEnv;

const PG = "postgres://tollgate:secret@db.internal:5432/tollgate";

describe("who gets the demo accounts (the published password tollgate-demo)", () => {
  it.each([
    ["the embedded database, SEED_DEMO unset (the Quick start)", true, { DATABASE_URL: "" }],
    ["the embedded database in production, SEED_DEMO unset", true, { NODE_ENV: "production" }],
    ["PostgreSQL, SEED_DEMO unset", false, { DATABASE_URL: PG }],
    ["PostgreSQL in production, SEED_DEMO unset", false, { DATABASE_URL: PG, NODE_ENV: "production" }],
    [
      "PostgreSQL in production, SEED_DEMO empty",
      false,
      { DATABASE_URL: PG, NODE_ENV: "production", SEED_DEMO: "" },
    ],
    ["PostgreSQL, SEED_DEMO=1", true, { DATABASE_URL: PG, SEED_DEMO: "1" }],
    [
      "PostgreSQL in production, SEED_DEMO=1",
      true,
      { DATABASE_URL: PG, NODE_ENV: "production", SEED_DEMO: "1" },
    ],
    ["the embedded database, SEED_DEMO=0", false, { SEED_DEMO: "0" }],
    ["PostgreSQL, SEED_DEMO=0", false, { DATABASE_URL: PG, SEED_DEMO: "0" }],
  ] as const)("%s: seeded %s", (_, seeded, env) => {
    expect(demoEnabled(asEnv(env))).toBe(seeded);
    expect(demoFromEnv(asEnv(env)) !== null).toBe(seeded);
  });

  it("refuses a SEED_DEMO it does not understand instead of guessing", () => {
    expect(() => demoEnabled(asEnv({ DATABASE_URL: PG, SEED_DEMO: "yes" }))).toThrow(
      /SEED_DEMO must be 0 or 1/,
    );
  });
});

describe("the shipped containers never seed the demo", () => {
  it("compose.yaml sets SEED_DEMO=0 for every Tollgate service and nothing enables it", () => {
    const text = readFileSync("compose.yaml", "utf8");
    expect(text).not.toMatch(/SEED_DEMO\s*[:=]\s*["']?(1|true)/i);
    // The shared environment block sets it off, and each of the app, the gateway and the worker uses that block.
    const shared = text.slice(
      text.indexOf("x-tollgate-env: &tollgate-env"),
      text.indexOf("\nx-tollgate-depends"),
    );
    expect(shared).toMatch(/^ {2}SEED_DEMO: "0"$/m);
    for (const name of ["app", "gateway", "worker"]) {
      expect(text).toMatch(
        new RegExp(`\\n {2}${name}:\\n(?: {4}.*\\n)*? {4}environment: \\*tollgate-env\\n`),
      );
    }
    expect(text.match(/environment: \*tollgate-env/g)).toHaveLength(3);
    expect(text.match(/SEED_DEMO/g)).toHaveLength(1);
  });

  it("every image the Dockerfile builds to run sets SEED_DEMO=0 and nothing enables it", () => {
    const text = readFileSync("Dockerfile", "utf8");
    expect(text).not.toMatch(/SEED_DEMO=["']?(1|true)/i);
    // The stages that run (app from its own base; gateway and worker from `source`) each carry SEED_DEMO=0.
    const stages = text.split(/^FROM /m).slice(1);
    const env = (name: string) =>
      stages.find((s) => new RegExp(`AS ${name}\\b`).test(s.split("\n")[0]!)) ?? "";
    expect(env("app")).toMatch(/^ENV .*\bSEED_DEMO=0\b/m);
    expect(env("source")).toMatch(/^ENV .*\bSEED_DEMO=0\b/m);
    for (const target of ["gateway", "worker"]) expect(env(target).split("\n")[0]).toMatch(/^source AS/);
  });
});

describe.each(testDbKinds)("demo accounts on a live database (%s)", (kind) => {
  let test: TestDatabase;
  beforeAll(async () => {
    test = await createMigratedDatabase(kind);
  });
  afterAll(async () => {
    installDatabase(undefined);
    resetDemoHint();
    await test.drop();
  });

  it("shows the login hint only while demo accounts exist, and logs one warning line on PostgreSQL", async () => {
    installDatabase(async () => test.handle);
    resetDemoHint();
    expect(await demoAccountsExist(test.handle.db)).toBe(false);
    expect(await demoHintShown()).toBe(false);
    const quiet = { warn: vi.fn() };
    expect(await warnIfDemoPasswordsRemain({ ...test.handle, kind: "postgres" }, quiet)).toEqual([]);
    expect(quiet.warn).not.toHaveBeenCalled();

    await seedDemo(test.handle.db);
    // Cached for a while per process, so the login page costs no query per visit.
    expect(await demoHintShown()).toBe(false);
    resetDemoHint();
    expect(await demoHintShown()).toBe(true);

    const logger = { warn: vi.fn() };
    const accounts = await warnIfDemoPasswordsRemain({ ...test.handle, kind: "postgres" }, logger);
    expect(accounts).toContain("root@tollgate.test");
    expect(logger.warn).toHaveBeenCalledTimes(1);
    const [fields, line] = logger.warn.mock.calls[0]!;
    expect(fields).toEqual({ accounts });
    expect(line).toMatch(/demo accounts with the published demo password exist.*super admin/);

    // The embedded database is the Quick start's demo: no warning there.
    const embedded = { warn: vi.fn() };
    expect(await warnIfDemoPasswordsRemain({ ...test.handle, kind: "pglite" }, embedded)).toEqual([]);
    expect(embedded.warn).not.toHaveBeenCalled();

    // Once every demo password is changed, the warning stops.
    await test.handle.db.update(appUser).set({ passwordHash: await hashPassword("a-private-password-42") });
    const after = { warn: vi.fn() };
    expect(await warnIfDemoPasswordsRemain({ ...test.handle, kind: "postgres" }, after)).toEqual([]);
    expect(after.warn).not.toHaveBeenCalled();
  }, 30_000);
});
