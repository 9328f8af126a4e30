// The hot path of an API call: from a secret to the live key, through a cache every instance keeps current.
// Creating, listing and revoking keys is the admin feature's (features/keys/server/keys.ts).
import "server-only";
import { createHash, randomBytes } from "node:crypto";
import { and, eq, isNull } from "drizzle-orm";
import type { Database } from "@/db";
import { apiKey, tenant } from "@/db/schema";
import { type KeyEvent, type KeyEventSink, publishKeyEvent } from "@/lib/auth/key-events";
import { dependencyFailure } from "@/lib/core/errors/dependency";
import { processSlot } from "@/lib/core/process/process-state";

const PREFIX = "tg_";
const CACHE_MS = 30_000;
const UNWATCHED_CACHE_MS = 2_000;
/** How long a secret no key has is remembered as unknown (never longer than a live key). */
const MISS_CACHE_MS = 30_000;
/**
 * The default of KEY_CACHE_STALE_SECONDS: while the database does not answer, a key this process found live within
 * this long keeps working from its cache (a revocation heard before the outage still holds: it removed the entry).
 */
export const DEFAULT_KEY_STALE_SECONDS = 60;

/** KEY_CACHE_STALE_SECONDS (0 to 3600; 0: never serve a key the database cannot confirm), else the default. */
export function keyStaleSecondsFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.KEY_CACHE_STALE_SECONDS?.trim();
  if (!raw) return DEFAULT_KEY_STALE_SECONDS;
  const seconds = Number(raw);
  if (!Number.isInteger(seconds) || seconds < 0 || seconds > 3600)
    throw new Error(
      `KEY_CACHE_STALE_SECONDS must be a whole number of seconds from 0 to 3600 (got ${JSON.stringify(raw.slice(0, 20))})`,
    );
  return seconds;
}

/** The default of API_KEY_CACHE_SIZE: live keys remembered per process, and as many unknown secrets again. */
export const DEFAULT_KEY_CACHE_SIZE = 10_000;

/** API_KEY_CACHE_SIZE (a positive integer), else the default; a value that is not one stops the start. */
export function keyCacheSizeFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.API_KEY_CACHE_SIZE?.trim();
  if (!raw) return DEFAULT_KEY_CACHE_SIZE;
  const size = Number(raw);
  if (!Number.isInteger(size) || size < 1) {
    throw new Error(
      `API_KEY_CACHE_SIZE must be a positive integer (got ${JSON.stringify(raw.slice(0, 20))})`,
    );
  }
  return size;
}

export const hashSecret = (secret: string) => createHash("sha256").update(secret).digest("hex");

/** A new key's secret, in the form find() recognises; only its hash is ever stored. */
export const newSecret = () => `${PREFIX}${randomBytes(24).toString("base64url")}`;

export type ResolvedKey = {
  id: string;
  tenantId: string;
  createdBy: string;
  /** The tools it may call over /mcp; null: every tool the tenant offers there. */
  allowedTools: string[] | null;
  /** When it stops working (epoch ms); null: never. Kept in the cache and checked on every use. */
  expiresAt: number | null;
};

/**
 * What a secret is on a call: a live key, a key past its expiry (answered 401 `key_expired` with the instant), or
 * nothing (unknown, revoked, or its tenant disabled: 401 as an unknown key).
 */
export type KeyCheck =
  | { status: "live"; key: ResolvedKey }
  | { status: "expired"; key: ResolvedKey; expiredAt: Date }
  | { status: "unknown" };

const UNKNOWN: KeyCheck = { status: "unknown" };

/** A found key at `now`: live, or expired from the second its expires_at passed (no cache entry outlives that). */
function checkAt(key: ResolvedKey, now: number): KeyCheck {
  if (key.expiresAt !== null && key.expiresAt <= now)
    return { status: "expired", key, expiredAt: new Date(key.expiresAt) };
  return { status: "live", key };
}

/** The sentence a caller of /v1 or /mcp reads when its key has expired. */
export const keyExpiredMessage = (expiredAt: Date) =>
  `This API key expired at ${expiredAt.toISOString()}. Use the key that replaced it, or ask a tenant admin for a new one.`;

type Entry<T> = { value: T; at: number };

/** A map that forgets its least recently used entry past `max` (a Map iterates in insertion order). */
class Lru<T> {
  private readonly map = new Map<string, Entry<T>>();
  constructor(private readonly max: number) {}

  get size(): number {
    return this.map.size;
  }
  /**
   * The value stored for `key` under `ttlMs`, or undefined. An expired entry stays (for `stale`) until it is
   * written again, cleared, or pushed out as the least recently used.
   */
  get(key: string, ttlMs: number, now: number): T | undefined {
    const entry = this.map.get(key);
    if (!entry || entry.at + ttlMs <= now) return undefined;
    this.map.delete(key);
    this.map.set(key, entry);
    return entry.value;
  }
  /** The value stored for `key` within `maxAgeMs`, fresh or not (what is served while its source is away). */
  stale(key: string, maxAgeMs: number, now: number): T | undefined {
    const entry = this.map.get(key);
    return entry && entry.at + maxAgeMs > now ? entry.value : undefined;
  }
  set(key: string, value: T, now: number): void {
    this.map.delete(key);
    this.map.set(key, { value, at: now });
    while (this.map.size > this.max) this.map.delete(this.map.keys().next().value as string);
  }
  deleteWhere(match: (value: T) => boolean): void {
    for (const [key, entry] of this.map) if (match(entry.value)) this.map.delete(key);
  }
  clear(): void {
    this.map.clear();
  }
}

export type KeyCacheOptions = {
  ttlMs?: number;
  unwatchedTtlMs?: number;
  /** How long an unknown secret is remembered (30 s, never longer than the live keys' ttl). */
  missTtlMs?: number;
  /** Live keys kept, least recently used first out; as many unknown secrets again (API_KEY_CACHE_SIZE). */
  maxEntries?: number;
  /** How long after it was last read a live key still works while the database does not answer (0: never). */
  staleMs?: number;
};

/**
 * Secret → live key, so a request costs no database round trip. Entries live `ttlMs` (30 s) while a listener
 * delivers revocations from every instance (key-events.ts), and only `unwatchedTtlMs` (2 s) while it does not
 * (not yet connected, or its connection dropped); when the listener comes back everything cached is forgotten,
 * since revocations may have been missed meanwhile. Live keys and unknown secrets are two bounded LRUs, so random
 * bearer tokens neither grow memory nor push the real keys out.
 */
export class ApiKeyCache implements KeyEventSink {
  private readonly keys: Lru<ResolvedKey>;
  private readonly misses: Lru<true>;
  private watched = false;
  // Bumped by every invalidation: a lookup that raced one does not cache what it read before it.
  private generation = 0;

  constructor(private readonly ttl: KeyCacheOptions = {}) {
    const max = ttl.maxEntries ?? DEFAULT_KEY_CACHE_SIZE;
    this.keys = new Lru(max);
    this.misses = new Lru(max);
  }

  get isWatched(): boolean {
    return this.watched;
  }

  /** How many secrets are remembered: live keys and unknown ones. */
  get size(): { keys: number; misses: number } {
    return { keys: this.keys.size, misses: this.misses.size };
  }

  /** The live key for a secret, or null (unknown, revoked, tenant disabled, or expired). */
  async find(db: Database, secret: string, now = Date.now()): Promise<ResolvedKey | null> {
    const found = await this.check(db, secret, now);
    return found.status === "live" ? found.key : null;
  }

  /**
   * What a secret is at `now`. An expired key is cached like a live one (its expiry in the entry), so expiry is
   * exact to the millisecond on every instance without a message, and a flood of calls with it costs no round trip.
   */
  async check(db: Database, secret: string, now = Date.now()): Promise<KeyCheck> {
    if (!secret.startsWith(PREFIX)) return UNKNOWN;
    const hash = hashSecret(secret);
    const ttl = this.watched ? (this.ttl.ttlMs ?? CACHE_MS) : (this.ttl.unwatchedTtlMs ?? UNWATCHED_CACHE_MS);
    const hit = this.keys.get(hash, ttl, now);
    if (hit) return checkAt(hit, now);
    if (this.misses.get(hash, Math.min(ttl, this.ttl.missTtlMs ?? MISS_CACHE_MS), now)) return UNKNOWN;
    const generation = this.generation;
    let row: (Omit<ResolvedKey, "expiresAt"> & { expiresAt: Date | null }) | undefined;
    try {
      [row] = await db
        .select({
          id: apiKey.id,
          tenantId: apiKey.tenantId,
          createdBy: apiKey.createdBy,
          allowedTools: apiKey.allowedTools,
          expiresAt: apiKey.expiresAt,
        })
        .from(apiKey)
        .innerJoin(tenant, eq(tenant.id, apiKey.tenantId))
        .where(and(eq(apiKey.secretHash, hash), isNull(apiKey.revokedAt), eq(tenant.disabled, false)))
        .limit(1);
    } catch (error) {
      // The database is away: a key found live lately keeps working (its expiry still checked to the ms); any
      // other secret gets the outage's 503 (thrown on), never a 401 that would tell a valid key it is wrong.
      const stale = this.keys.stale(hash, this.ttl.staleMs ?? DEFAULT_KEY_STALE_SECONDS * 1000, now);
      if (stale && dependencyFailure(error)) return checkAt(stale, now);
      throw error;
    }
    const key: ResolvedKey | null = row ? { ...row, expiresAt: row.expiresAt?.getTime() ?? null } : null;
    if (generation === this.generation) {
      if (key) this.keys.set(hash, key, now);
      else this.misses.set(hash, true, now);
    }
    if (!key) return UNKNOWN;
    const checked = checkAt(key, now);
    // last_used_at is written off the hot path (never awaited) and only on a cache miss: at most once per cache
    // lifetime (30 s) per key per process, so the keys page's "last used" lags by no more than that.
    if (checked.status === "live")
      void db
        .update(apiKey)
        .set({ lastUsedAt: new Date(now) })
        .where(eq(apiKey.id, key.id))
        .catch(() => undefined);
    return checked;
  }

  apply(event: KeyEvent): void {
    this.generation++;
    if (event.kind === "key") {
      this.keys.deleteWhere((key) => key.id === event.keyId);
    } else {
      // A tenant's state changed: its keys, and secrets remembered as unknown (they carry no tenant), go.
      this.keys.clear();
      this.misses.clear();
    }
  }

  watching(up: boolean): void {
    if (up && !this.watched) this.clear();
    this.watched = up;
  }

  clear(): void {
    this.generation++;
    this.keys.clear();
    this.misses.clear();
  }
}

/** This process's key cache (its revocation feed is started with the server: startKeyEvents). */
export function processKeyCache(): ApiKeyCache {
  // Once per process, so a revocation in one route's bundle clears the cache the /v1 route reads.
  return processSlot(
    "keys.cache",
    () => new ApiKeyCache({ maxEntries: keyCacheSizeFromEnv(), staleMs: keyStaleSecondsFromEnv() * 1000 }),
  );
}

/** The live key for a secret, or null (unknown, revoked, expired, or its tenant disabled), through the process's cache. */
export function findApiKey(db: Database, secret: string, now = Date.now()): Promise<ResolvedKey | null> {
  return processKeyCache().find(db, secret, now);
}

/** What a secret is at `now` (live, expired with its instant, or unknown), through the process's cache. */
export function checkApiKey(db: Database, secret: string, now = Date.now()): Promise<KeyCheck> {
  return processKeyCache().check(db, secret, now);
}

/**
 * After a committed change a key depends on (the key revoked, rotated, its allowed tools or expiry changed, its
 * tenant disabled): this process's cache forgets at once, and instances listening on Redis hear of it (PostgreSQL
 * listeners had the transaction's NOTIFY).
 */
export async function announceKeyEvent(event: KeyEvent): Promise<void> {
  processKeyCache().apply(event);
  await publishKeyEvent(event);
}

export function clearApiKeyCache(): void {
  processKeyCache().clear();
}
