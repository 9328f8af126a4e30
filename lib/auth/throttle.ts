import { eq, inArray, sql } from "drizzle-orm";
import type { Database } from "@/db";
import { authThrottle } from "@/db/schema";

/** A burst of failures for one email (or one address) within the window blocks it until the window ends. */
export const THROTTLE = {
  windowSeconds: 15 * 60,
  maxFailuresPerEmail: 5,
  maxFailuresPerAddress: 30,
} as const;

export type ThrottleKeys = { email: string; address: string };

const emailKey = (email: string) => `email:${email.trim().toLowerCase()}`;
const addressKey = (address: string) => `ip:${address}`;

/** Seconds until the caller may try again, or 0 when neither its email nor its address is blocked. */
export async function throttleRetryAfter(
  db: Database,
  keys: ThrottleKeys,
  now = new Date(),
): Promise<number> {
  const rows = await db
    .select({ blockedUntil: authThrottle.blockedUntil })
    .from(authThrottle)
    .where(inArray(authThrottle.key, [emailKey(keys.email), addressKey(keys.address)]));
  let wait = 0;
  for (const row of rows) {
    if (row.blockedUntil && row.blockedUntil > now) {
      wait = Math.max(wait, Math.ceil((row.blockedUntil.getTime() - now.getTime()) / 1000));
    }
  }
  return wait;
}

/** Counts one failed sign-in against the email and the address, atomically (safe across app instances). */
export async function recordSignInFailure(db: Database, keys: ThrottleKeys, now = new Date()): Promise<void> {
  await bump(db, emailKey(keys.email), THROTTLE.maxFailuresPerEmail, now);
  await bump(db, addressKey(keys.address), THROTTLE.maxFailuresPerAddress, now);
}

/** A successful sign-in forgets the email's failures (not the address's: one good account must not unlock a spray). */
export async function clearSignInFailures(db: Database, email: string): Promise<void> {
  await db.delete(authThrottle).where(eq(authThrottle.key, emailKey(email)));
}

async function bump(db: Database, key: string, max: number, now: Date): Promise<void> {
  const windowStart = new Date(now.getTime() - THROTTLE.windowSeconds * 1000);
  const blockUntil = new Date(now.getTime() + THROTTLE.windowSeconds * 1000);
  // Dates go to raw SQL as ISO text: postgres-js does not serialise Date objects inside sql`` templates.
  const at = (d: Date) => sql`${d.toISOString()}::timestamptz`;
  const expired = sql`${authThrottle.windowStartedAt} < ${at(windowStart)}`;
  const failures = sql`case when ${expired} then 1 else ${authThrottle.failures} + 1 end`;
  await db
    .insert(authThrottle)
    .values({ key, failures: 1, windowStartedAt: now, blockedUntil: max <= 1 ? blockUntil : null })
    .onConflictDoUpdate({
      target: authThrottle.key,
      set: {
        failures,
        windowStartedAt: sql`case when ${expired} then ${at(now)} else ${authThrottle.windowStartedAt} end`,
        blockedUntil: sql`case when ${failures} >= ${max} then ${at(blockUntil)} else ${authThrottle.blockedUntil} end`,
      },
    });
}

/** The client's address as the proxy in front reports it; "unknown" when there is none. */
export function clientAddress(headers: Headers): string {
  const forwarded = headers.get("x-forwarded-for")?.split(",")[0]?.trim();
  return forwarded || headers.get("x-real-ip")?.trim() || "unknown";
}
