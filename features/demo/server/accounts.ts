import "server-only";
import { and, inArray, isNotNull } from "drizzle-orm";
import { type Database, getDb } from "@/db";
import type { DatabaseHandle } from "@/db/client";
import { appUser } from "@/db/schema";
import { verifyPassword } from "@/lib/auth/password";
import { log } from "@/lib/core/process/log";
import { DEMO_PASSWORD, DEMO_USERS } from "./seed";

const DEMO_EMAILS = DEMO_USERS.map((u) => u.email);

/** Whether any demo account (by its email) exists: one indexed lookup. */
export async function demoAccountsExist(db: Database): Promise<boolean> {
  const rows = await db
    .select({ id: appUser.id })
    .from(appUser)
    .where(inArray(appUser.email, DEMO_EMAILS))
    .limit(1);
  return rows.length > 0;
}

const HINT_TTL_MS = 30_000;
let hint: { at: number; shown: Promise<boolean> } | null = null;

/**
 * Whether the login page names the demo password: only while demo accounts exist, asked at most every 30 s per
 * process so the login page costs no query per visit; a failed lookup hides the hint.
 */
export function demoHintShown(now = Date.now()): Promise<boolean> {
  if (!hint || now - hint.at > HINT_TTL_MS) {
    hint = { at: now, shown: getDb().then(demoAccountsExist, () => false) };
  }
  return hint.shown;
}

/** Forgets the login hint's answer (tests, and after the demo accounts are removed in-process). */
export function resetDemoHint(): void {
  hint = null;
}

/** The demo accounts whose password is still the published demo password. */
export async function demoPasswordAccounts(db: Database): Promise<string[]> {
  const rows = await db
    .select({ email: appUser.email, passwordHash: appUser.passwordHash })
    .from(appUser)
    .where(and(inArray(appUser.email, DEMO_EMAILS), isNotNull(appUser.passwordHash)));
  const open: string[] = [];
  for (const row of rows) if (await verifyPassword(DEMO_PASSWORD, row.passwordHash)) open.push(row.email);
  return open.sort();
}

/**
 * On PostgreSQL (a real deployment), one warning line at start while a demo account still signs in with the
 * published demo password; the embedded database is the Quick start's demo and stays quiet.
 */
export async function warnIfDemoPasswordsRemain(
  handle: DatabaseHandle,
  logger: Pick<typeof log, "warn"> = log,
): Promise<string[]> {
  if (handle.kind !== "postgres") return [];
  const accounts = await demoPasswordAccounts(handle.db);
  if (accounts.length > 0) {
    logger.warn(
      { accounts },
      `demo accounts with the published demo password exist on this PostgreSQL database: anyone can sign in as them (${accounts.includes("root@tollgate.test") ? "including the super admin; " : ""}delete them or change their passwords)`,
    );
  }
  return accounts;
}
