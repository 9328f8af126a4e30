import { createHash, randomBytes } from "node:crypto";
import { and, desc, eq, isNull } from "drizzle-orm";
import type { Database } from "@/db";
import { apiKey, tenant } from "@/db/schema";
import { type Actor, recordChange } from "@/lib/changes/changes";
import { notFound } from "@/lib/core/errors";
import {
  type KeyEvent,
  type KeyEventSink,
  notifyInTransaction,
  publishKeyEvent,
} from "@/lib/keys/key-events";

const PREFIX = "tg_";
const CACHE_MS = 30_000;
const UNWATCHED_CACHE_MS = 2_000;

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

export type ResolvedKey = { id: string; tenantId: string; createdBy: string };

type Entry = { key: ResolvedKey | null; at: number };

/**
 * Secret → live key, so a request costs no database round trip. Entries live `ttlMs` (30 s) while a listener
 * delivers revocations from every instance (key-events.ts), and only `unwatchedTtlMs` (2 s) while it does not
 * (not yet connected, or its connection dropped); when the listener comes back everything cached is forgotten,
 * since revocations may have been missed meanwhile.
 */
export class ApiKeyCache implements KeyEventSink {
  private readonly entries = new Map<string, Entry>();
  private watched = false;
  // Bumped by every invalidation: a lookup that raced one does not cache what it read before it.
  private generation = 0;

  constructor(private readonly ttl: { ttlMs?: number; unwatchedTtlMs?: number } = {}) {}

  get isWatched(): boolean {
    return this.watched;
  }

  async find(db: Database, secret: string, now = Date.now()): Promise<ResolvedKey | null> {
    if (!secret.startsWith(PREFIX)) return null;
    const hash = hashSecret(secret);
    const hit = this.entries.get(hash);
    const ttl = this.watched ? (this.ttl.ttlMs ?? CACHE_MS) : (this.ttl.unwatchedTtlMs ?? UNWATCHED_CACHE_MS);
    if (hit && hit.at + ttl > now) return hit.key;
    const generation = this.generation;
    const [row] = await db
      .select({ id: apiKey.id, tenantId: apiKey.tenantId, createdBy: apiKey.createdBy })
      .from(apiKey)
      .innerJoin(tenant, eq(tenant.id, apiKey.tenantId))
      .where(and(eq(apiKey.secretHash, hash), isNull(apiKey.revokedAt), eq(tenant.disabled, false)))
      .limit(1);
    const key = row ?? null;
    if (generation === this.generation) this.entries.set(hash, { key, at: now });
    if (key)
      void db
        .update(apiKey)
        .set({ lastUsedAt: new Date(now) })
        .where(eq(apiKey.id, key.id))
        .catch(() => undefined);
    return key;
  }

  apply(event: KeyEvent): void {
    this.generation++;
    if (event.kind === "key") {
      for (const [hash, entry] of this.entries) if (entry.key?.id === event.keyId) this.entries.delete(hash);
    } else {
      // A tenant's state changed: its keys, and secrets remembered as unknown (they carry no tenant), go.
      this.entries.clear();
    }
  }

  watching(up: boolean): void {
    if (up && !this.watched) this.clear();
    this.watched = up;
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
  }
}

// On globalThis, so a revocation in one route's bundle clears the cache the /v1 route reads.
const holder = globalThis as { __tollgateApiKeyCache?: ApiKeyCache };

/** This process's key cache (its revocation feed is started with the server: startKeyEvents). */
export function processKeyCache(): ApiKeyCache {
  holder.__tollgateApiKeyCache ??= new ApiKeyCache();
  return holder.__tollgateApiKeyCache;
}

/** The live key for a secret, or null (unknown, revoked, or its tenant disabled), through the process's cache. */
export function findApiKey(db: Database, secret: string, now = Date.now()): Promise<ResolvedKey | null> {
  return processKeyCache().find(db, secret, now);
}

/**
 * After a committed change a key depends on (the key revoked, its tenant disabled): this process's cache forgets
 * at once, and instances listening on Redis hear of it (PostgreSQL listeners had the transaction's NOTIFY).
 */
export async function announceKeyEvent(event: KeyEvent): Promise<void> {
  processKeyCache().apply(event);
  await publishKeyEvent(event);
}

export function clearApiKeyCache(): void {
  processKeyCache().clear();
}
