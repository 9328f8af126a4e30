import { createHash, randomBytes } from "node:crypto";
import { and, desc, eq, isNull } from "drizzle-orm";
import type { Database } from "@/db";
import { apiKey, tenant } from "@/db/schema";
import { type Actor, recordChange } from "@/lib/admin/changes";
import { notFound } from "@/lib/errors";

const PREFIX = "tg_";
const CACHE_MS = 30_000;

export const hashSecret = (secret: string) => createHash("sha256").update(secret).digest("hex");

export type KeyView = {
  id: string;
  name: string;
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
};
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
) {
  const secret = `${PREFIX}${randomBytes(24).toString("base64url")}`;
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

/** Revokes a key of this tenant at once (also in this process's lookup cache); another tenant's id is 404. */
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
  for (const [hash, entry] of cache) if (entry.key?.id === q.id) cache.delete(hash);
  return view(row);
}

export type ResolvedKey = { id: string; tenantId: string; createdBy: string };
// On globalThis, so a revocation in one route's bundle clears the cache the /v1 route reads.
const holder = globalThis as { __tollgateKeyCache?: Map<string, { key: ResolvedKey | null; until: number }> };
holder.__tollgateKeyCache ??= new Map();
const cache = holder.__tollgateKeyCache;

/**
 * The live key for a secret, or null (unknown, revoked, or its tenant disabled). Cached for 30 s per process,
 * so a request costs no database round trip; revocation on another instance takes effect within that time.
 */
export async function findApiKey(
  db: Database,
  secret: string,
  now = Date.now(),
): Promise<ResolvedKey | null> {
  if (!secret.startsWith(PREFIX)) return null;
  const hash = hashSecret(secret);
  const hit = cache.get(hash);
  if (hit && hit.until > now) return hit.key;
  const [row] = await db
    .select({ id: apiKey.id, tenantId: apiKey.tenantId, createdBy: apiKey.createdBy })
    .from(apiKey)
    .innerJoin(tenant, eq(tenant.id, apiKey.tenantId))
    .where(and(eq(apiKey.secretHash, hash), isNull(apiKey.revokedAt), eq(tenant.disabled, false)))
    .limit(1);
  const key = row ?? null;
  cache.set(hash, { key, until: now + CACHE_MS });
  if (key)
    void db
      .update(apiKey)
      .set({ lastUsedAt: new Date(now) })
      .where(eq(apiKey.id, key.id))
      .catch(() => undefined);
  return key;
}

export function clearApiKeyCache(): void {
  cache.clear();
}
