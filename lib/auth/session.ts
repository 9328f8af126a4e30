import { auth } from "./index";

export type SessionClaims = { userId: string; tenantId: string | null; epoch?: number };

/** What the signed session cookie says; guards then check it against the database. */
export async function readSessionClaims(): Promise<SessionClaims | null> {
  const session = await auth();
  const userId = session?.user?.id;
  return userId ? { userId, tenantId: session.tenantId ?? null, epoch: session.epoch ?? 0 } : null;
}
