// The hot path of an API call: from a secret to the live key, through a cache every instance keeps current.
// Creating, listing and revoking keys is the admin feature's (features/keys/server/keys.ts).
import "server-only";
import { createHash, randomBytes } from "node:crypto";
import { and, eq, isNull } from "drizzle-orm";
import type { Database } from "@/db";
import { apiKey, tenant } from "@/db/schema";
import { processSlot } from "@/lib/core/process-state";
import { type KeyEvent, type KeyEventSink, publishKeyEvent } from "@/lib/keys/key-events";

const PREFIX = "tg_";
const CACHE_MS = 30_000;
const UNWATCHED_CACHE_MS = 2_000;

export const hashSecret = (secret: string) => createHash("sha256").update(secret).digest("hex");

/** A new key's secret, in the form find() recognises; only its hash is ever stored. */
export const newSecret = () => `${PREFIX}${randomBytes(24).toString("base64url")}`;

export type ResolvedKey = {
  id: string;
  tenantId: string;
  createdBy: string;
  /** The tools it may call over /mcp; null: every tool the tenant offers there. */
  allowedTools: string[] | null;
};

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
      .select({
        id: apiKey.id,
        tenantId: apiKey.tenantId,
        createdBy: apiKey.createdBy,
        allowedTools: apiKey.allowedTools,
      })
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

/** This process's key cache (its revocation feed is started with the server: startKeyEvents). */
export function processKeyCache(): ApiKeyCache {
  // Once per process, so a revocation in one route's bundle clears the cache the /v1 route reads.
  return processSlot("keys.cache", () => new ApiKeyCache());
}

/** The live key for a secret, or null (unknown, revoked, or its tenant disabled), through the process's cache. */
export function findApiKey(db: Database, secret: string, now = Date.now()): Promise<ResolvedKey | null> {
  return processKeyCache().find(db, secret, now);
}

/**
 * After a committed change a key depends on (the key revoked or its allowed tools changed, its tenant disabled):
 * this process's cache forgets at once, and instances listening on Redis hear of it (PostgreSQL listeners had the
 * transaction's NOTIFY).
 */
export async function announceKeyEvent(event: KeyEvent): Promise<void> {
  processKeyCache().apply(event);
  await publishKeyEvent(event);
}

export function clearApiKeyCache(): void {
  processKeyCache().clear();
}
