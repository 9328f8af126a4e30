import "server-only";
import { and, eq, isNull, lt, sql } from "drizzle-orm";
import type { Database, Executor } from "@/db";
import { appUser, authSession } from "@/db/schema";

/** `last_seen_at` is refreshed at most this often, so an active session costs a write every few minutes, not per request. */
const LAST_SEEN_EVERY_MS = 5 * 60 * 1000;

/** Records a new session at sign-in and returns its id (the cookie's `sid`). */
export async function openSession(
  db: Database,
  input: { userId: string; userAgent?: string | null; ip?: string | null; maxAgeSeconds: number },
  now = new Date(),
): Promise<string> {
  // Sessions whose cookie can no longer be alive (idle past its lifetime) are no use to anyone: drop them.
  const expired = new Date(now.getTime() - input.maxAgeSeconds * 1000 - LAST_SEEN_EVERY_MS);
  await db
    .delete(authSession)
    .where(and(eq(authSession.userId, input.userId), lt(authSession.lastSeenAt, expired)));
  const [row] = await db
    .insert(authSession)
    .values({
      userId: input.userId,
      userAgent: input.userAgent?.slice(0, 500) ?? null,
      ip: input.ip?.slice(0, 100) ?? null,
      createdAt: now,
      lastSeenAt: now,
    })
    .returning({ id: authSession.id });
  return row!.id;
}

/**
 * Whether the cookie's session is still open: it exists, belongs to this user and was not revoked. Touches
 * `last_seen_at` when it is stale. A cookie without a `sid` (or with a malformed one) is not a session.
 */
export async function isSessionOpen(
  db: Database,
  sessionId: string | undefined,
  userId: string,
  now = new Date(),
): Promise<boolean> {
  if (!sessionId || !/^[0-9a-f-]{36}$/i.test(sessionId)) return false;
  const [row] = await db
    .select({
      userId: authSession.userId,
      revokedAt: authSession.revokedAt,
      lastSeenAt: authSession.lastSeenAt,
    })
    .from(authSession)
    .where(eq(authSession.id, sessionId))
    .limit(1);
  if (!row || row.userId !== userId || row.revokedAt) return false;
  if (now.getTime() - row.lastSeenAt.getTime() > LAST_SEEN_EVERY_MS) {
    await db.update(authSession).set({ lastSeenAt: now }).where(eq(authSession.id, sessionId));
  }
  return true;
}

/** Ends one session (sign-out): its cookie is refused from now on, on every instance. */
export async function revokeSession(db: Database, sessionId: string, now = new Date()): Promise<void> {
  if (!/^[0-9a-f-]{36}$/i.test(sessionId)) return;
  await db
    .update(authSession)
    .set({ revokedAt: now })
    .where(and(eq(authSession.id, sessionId), isNull(authSession.revokedAt)));
}

/**
 * Ends every session of a user at once: raises the session epoch (cookies issued before are refused) and revokes
 * their open `auth_session` rows. Run it in the transaction that changes who holds the account.
 */
export async function endAllSessions(db: Executor, userId: string, now = new Date()): Promise<void> {
  await db
    .update(appUser)
    .set({ sessionEpoch: sql`${appUser.sessionEpoch} + 1` })
    .where(eq(appUser.id, userId));
  await db
    .update(authSession)
    .set({ revokedAt: now })
    .where(and(eq(authSession.userId, userId), isNull(authSession.revokedAt)));
}
