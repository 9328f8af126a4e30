import "server-only";
import { inArray, sql } from "drizzle-orm";
import type { Database } from "@/db";
import { authThrottle } from "@/db/schema";

/**
 * The sign-in throttle. Hard limits (429 until the window ends) are per email-and-address pair and per address,
 * so they stop whoever makes the failures. Per email there is only a growing delay before the password is
 * checked, right or wrong: someone spraying an owner's email from elsewhere slows the owner down a little but
 * cannot lock them out.
 */
export const THROTTLE = {
  windowSeconds: 15 * 60,
  maxFailuresPerPair: 5,
  maxFailuresPerAddress: 30,
  /** The email's failures in the window before answers for it start to be delayed. */
  emailDelayAfterFailures: 2,
  emailDelayBaseMs: 250,
  emailDelayMaxMs: 8_000,
} as const;

export type ThrottleKeys = { email: string; address: string };

const normalEmail = (email: string) => email.trim().toLowerCase();
const emailKey = (email: string) => `email:${normalEmail(email)}`;
const addressKey = (address: string) => `ip:${address}`;
const pairKey = (keys: ThrottleKeys) => `pair:${keys.address}|${normalEmail(keys.email)}`;

export type SignInGate = {
  /** Seconds until this address (or this email from this address) may try again; 0 when not blocked. */
  retryAfterSeconds: number;
  /** How long to wait before checking the password, from the email's recent failures. */
  delayMs: number;
};

/** The delay for an email with this many failures in the window: none at first, then doubling to a cap. */
export function emailDelayMs(failures: number): number {
  if (failures <= THROTTLE.emailDelayAfterFailures) return 0;
  const doublings = failures - THROTTLE.emailDelayAfterFailures - 1;
  return Math.min(THROTTLE.emailDelayBaseMs * 2 ** Math.min(doublings, 20), THROTTLE.emailDelayMaxMs);
}

/** What the throttle says about one sign-in attempt, before the password is looked at. */
export async function signInGate(db: Database, keys: ThrottleKeys, now = new Date()): Promise<SignInGate> {
  const rows = await db
    .select({
      key: authThrottle.key,
      failures: authThrottle.failures,
      windowStartedAt: authThrottle.windowStartedAt,
      blockedUntil: authThrottle.blockedUntil,
    })
    .from(authThrottle)
    .where(inArray(authThrottle.key, [pairKey(keys), addressKey(keys.address), emailKey(keys.email)]));
  let retryAfterSeconds = 0;
  let delayMs = 0;
  const windowStart = now.getTime() - THROTTLE.windowSeconds * 1000;
  for (const row of rows) {
    if (row.key === emailKey(keys.email)) {
      if (row.windowStartedAt.getTime() >= windowStart) delayMs = emailDelayMs(row.failures);
    } else if (row.blockedUntil && row.blockedUntil > now) {
      const wait = Math.ceil((row.blockedUntil.getTime() - now.getTime()) / 1000);
      retryAfterSeconds = Math.max(retryAfterSeconds, wait);
    }
  }
  return { retryAfterSeconds, delayMs };
}

/** Seconds until the caller may try again, or 0 when neither its address nor its email-and-address pair is blocked. */
export async function throttleRetryAfter(
  db: Database,
  keys: ThrottleKeys,
  now = new Date(),
): Promise<number> {
  return (await signInGate(db, keys, now)).retryAfterSeconds;
}

/** Counts one failed sign-in against the pair, the address and the email, each atomically (safe across instances). */
export async function recordSignInFailure(db: Database, keys: ThrottleKeys, now = new Date()): Promise<void> {
  await bump(db, pairKey(keys), THROTTLE.maxFailuresPerPair, now);
  await bump(db, addressKey(keys.address), THROTTLE.maxFailuresPerAddress, now);
  await bump(db, emailKey(keys.email), null, now);
}

/**
 * A successful sign-in forgets the email's failures (its owner is here) and the pair's; not the address's, so
 * one good account cannot unlock a spray from the same address.
 */
export async function clearSignInFailures(db: Database, keys: ThrottleKeys): Promise<void> {
  await db.delete(authThrottle).where(inArray(authThrottle.key, [emailKey(keys.email), pairKey(keys)]));
}

/** Adds one failure to a key's window (a new window when the last one ended); `max` null never blocks. */
async function bump(db: Database, key: string, max: number | null, now: Date): Promise<void> {
  const windowStart = new Date(now.getTime() - THROTTLE.windowSeconds * 1000);
  const blockUntil = new Date(now.getTime() + THROTTLE.windowSeconds * 1000);
  // Dates go to raw SQL as ISO text: postgres-js does not serialise Date objects inside sql`` templates.
  const at = (d: Date) => sql`${d.toISOString()}::timestamptz`;
  const expired = sql`${authThrottle.windowStartedAt} < ${at(windowStart)}`;
  const failures = sql`case when ${expired} then 1 else ${authThrottle.failures} + 1 end`;
  await db
    .insert(authThrottle)
    .values({
      key,
      failures: 1,
      windowStartedAt: now,
      blockedUntil: max !== null && max <= 1 ? blockUntil : null,
    })
    .onConflictDoUpdate({
      target: authThrottle.key,
      set: {
        failures,
        windowStartedAt: sql`case when ${expired} then ${at(now)} else ${authThrottle.windowStartedAt} end`,
        blockedUntil:
          max === null
            ? sql`null`
            : sql`case when ${failures} >= ${max} then ${at(blockUntil)} else ${authThrottle.blockedUntil} end`,
      },
    });
}
