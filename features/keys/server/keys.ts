// The API keys an admin manages: create (the secret shown once), list, revoke. Finding a key on a call is
// lib/keys' (the hot path and its cache).
import "server-only";
import { and, desc, eq, isNull } from "drizzle-orm";
import type { Database } from "@/db";
import { apiKey } from "@/db/schema";
import type { CreatedKey, KeyView } from "@/features/keys/contracts";
import { type Actor, recordChange } from "@/lib/changes/changes";
import { notFound } from "@/lib/core/errors";
import { announceKeyEvent, hashSecret, newSecret } from "@/lib/keys/api-keys";
import { notifyInTransaction } from "@/lib/keys/key-events";

const view = (k: typeof apiKey.$inferSelect): KeyView => ({
  id: k.id,
  name: k.name,
  prefix: k.prefix,
  createdAt: k.createdAt,
  lastUsedAt: k.lastUsedAt,
  revokedAt: k.revokedAt,
});

/**
 * Creates a key; the secret is returned this once and only its hash is stored. With an actor (an admin's
 * request), the admin-change log gets its row in the same transaction.
 */
export async function createApiKey(
  db: Database,
  input: { tenantId: string; name: string; createdBy: string },
  actor?: Actor,
): Promise<CreatedKey> {
  const secret = newSecret();
  const row = await db.transaction(async (tx) => {
    const [created] = await tx
      .insert(apiKey)
      .values({
        tenantId: input.tenantId,
        name: input.name,
        prefix: secret.slice(0, 10),
        secretHash: hashSecret(secret),
        createdBy: input.createdBy,
      })
      .returning();
    if (actor)
      await recordChange(tx, actor, {
        tenantId: input.tenantId,
        action: "api_key.created",
        objectType: "api_key",
        objectId: created!.id,
        before: null,
        after: { name: created!.name, prefix: created!.prefix },
      });
    return created!;
  });
  return { secret, key: view(row) };
}

export async function listApiKeys(db: Database, tenantId: string): Promise<KeyView[]> {
  const rows = await db
    .select()
    .from(apiKey)
    .where(eq(apiKey.tenantId, tenantId))
    .orderBy(desc(apiKey.createdAt));
  return rows.map(view);
}

/**
 * Revokes a key of this tenant; every instance's key cache forgets it at once (key-events.ts). Another
 * tenant's id is 404.
 */
export async function revokeApiKey(
  db: Database,
  q: { tenantId: string; id: string },
  actor?: Actor,
): Promise<KeyView> {
  const row = await db.transaction(async (tx) => {
    const [revoked] = await tx
      .update(apiKey)
      .set({ revokedAt: new Date() })
      .where(and(eq(apiKey.tenantId, q.tenantId), eq(apiKey.id, q.id), isNull(apiKey.revokedAt)))
      .returning();
    if (!revoked) throw notFound("API key");
    await notifyInTransaction(tx, { kind: "key", keyId: revoked.id });
    if (actor)
      await recordChange(tx, actor, {
        tenantId: q.tenantId,
        action: "api_key.revoked",
        objectType: "api_key",
        objectId: q.id,
        before: { name: revoked.name, prefix: revoked.prefix, status: "active" },
        after: { name: revoked.name, prefix: revoked.prefix, status: "revoked" },
      });
    return revoked;
  });
  await announceKeyEvent({ kind: "key", keyId: row.id });
  return view(row);
}
