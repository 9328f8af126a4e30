import "server-only";
import { getDb } from "@/db";
import { auth } from "./index";
import { isSessionOpen } from "./sessions";

export type SessionClaims = { userId: string; tenantId: string | null; epoch?: number; sessionId?: string };

/**
 * What the signed session cookie says, if its server-side session is still open (not signed out, and minted
 * by a sign-in this database knows); guards then check the user against the database.
 */
export async function readSessionClaims(): Promise<SessionClaims | null> {
  const session = await auth();
  const userId = session?.user?.id;
  if (!userId) return null;
  if (!(await isSessionOpen(await getDb(), session.sessionId, userId))) return null;
  return {
    userId,
    tenantId: session.tenantId ?? null,
    epoch: session.epoch ?? 0,
    sessionId: session.sessionId,
  };
}
