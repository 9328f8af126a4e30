import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { Database } from "@/db";
import {
  ApiKeyCache,
  DEFAULT_KEY_CACHE_SIZE,
  keyCacheSizeFromEnv,
  keyStaleSecondsFromEnv,
  newSecret,
  type ResolvedKey,
} from "@/lib/auth/api-keys";

const KEY: ResolvedKey = { id: "k1", tenantId: "t1", createdBy: "u1", allowedTools: null, expiresAt: null };

/** A database that answers the key lookup with `answer()` and counts the lookups. */
function fakeDb(answer: () => ResolvedKey[] | Promise<ResolvedKey[]>) {
  const calls = { lookups: 0 };
  const chain = {
    from: () => chain,
    innerJoin: () => chain,
    where: () => chain,
    limit: async () => {
      calls.lookups++;
      return answer();
    },
    set: () => chain,
    catch: () => undefined,
  };
  const db = { select: () => chain, update: () => chain } as unknown as Database;
  return { db, calls };
}

const randomToken = () => `tg_${randomBytes(24).toString("base64url")}`;

describe("the API-key cache under a flood of random bearer tokens", () => {
  it("100,000 unknown tg_ secrets leave it at its bound, and the live key is still served from memory", async () => {
    const secret = newSecret();
    let known = true;
    const { db, calls } = fakeDb(() => (known ? [KEY] : []));
    const cache = new ApiKeyCache();
    cache.watching(true);
    const now = 1_000_000;
    expect(await cache.find(db, secret, now)).toEqual(KEY);

    known = false;
    let served = 0;
    for (let i = 0; i < 100_000; i++) if (await cache.find(db, randomToken(), now + 1)) served++;
    expect(served).toBe(0);
    expect(cache.size).toEqual({ keys: 1, misses: DEFAULT_KEY_CACHE_SIZE });

    // Unknown secrets never push a real key out: it still answers without a lookup.
    const before = calls.lookups;
    expect(await cache.find(db, secret, now + 2)).toEqual(KEY);
    expect(calls.lookups).toBe(before);
  }, 60_000);

  it("keeps at most maxEntries of each, the least recently used out first", async () => {
    const { db, calls } = fakeDb(() => []);
    const cache = new ApiKeyCache({ maxEntries: 3 });
    cache.watching(true);
    const [a, b, c, d] = [randomToken(), randomToken(), randomToken(), randomToken()];
    for (const token of [a, b, c]) await cache.find(db, token, 0);
    await cache.find(db, a, 1); // a is used again: b is now the oldest
    await cache.find(db, d, 2);
    expect(cache.size.misses).toBe(3);
    const before = calls.lookups;
    await cache.find(db, a, 3);
    expect(calls.lookups).toBe(before); // still remembered
    await cache.find(db, b, 3);
    expect(calls.lookups).toBe(before + 1); // forgotten, asked again
  });

  it("remembers an unknown secret for 30 s only, then asks again", async () => {
    const { db, calls } = fakeDb(() => []);
    const cache = new ApiKeyCache();
    cache.watching(true);
    const token = randomToken();
    await cache.find(db, token, 0);
    await cache.find(db, token, 29_999);
    expect(calls.lookups).toBe(1);
    await cache.find(db, token, 30_000);
    expect(calls.lookups).toBe(2);
  });

  it("keeps revocation as it was: a key event forgets that key at once", async () => {
    const { db, calls } = fakeDb(() => [KEY]);
    const cache = new ApiKeyCache();
    cache.watching(true);
    const secret = newSecret();
    await cache.find(db, secret, 0);
    cache.apply({ kind: "key", keyId: KEY.id } as never);
    await cache.find(db, secret, 1);
    expect(calls.lookups).toBe(2);
  });

  it("refuses a cached key from the millisecond its expiry passes, with no lookup and no message", async () => {
    // The row as the database answers it: expires_at is a Date there.
    const { db, calls } = fakeDb(() => [{ ...KEY, expiresAt: new Date(10_000) } as unknown as ResolvedKey]);
    const cache = new ApiKeyCache();
    cache.watching(true);
    const secret = newSecret();
    expect(await cache.check(db, secret, 0)).toEqual({ status: "live", key: { ...KEY, expiresAt: 10_000 } });
    expect(await cache.find(db, secret, 9_999)).toMatchObject({ id: KEY.id });
    expect(await cache.check(db, secret, 10_000)).toMatchObject({
      status: "expired",
      expiredAt: new Date(10_000),
    });
    expect(await cache.find(db, secret, 10_001)).toBeNull();
    expect(calls.lookups).toBe(1);
  });

  it("reads its size from API_KEY_CACHE_SIZE, refusing nonsense", () => {
    expect(keyCacheSizeFromEnv({} as NodeJS.ProcessEnv)).toBe(10_000);
    expect(keyCacheSizeFromEnv({ API_KEY_CACHE_SIZE: "500" } as unknown as NodeJS.ProcessEnv)).toBe(500);
    for (const bad of ["0", "-1", "1.5", "many"]) {
      expect(() => keyCacheSizeFromEnv({ API_KEY_CACHE_SIZE: bad } as unknown as NodeJS.ProcessEnv)).toThrow(
        /API_KEY_CACHE_SIZE must be a positive integer/,
      );
    }
  });

  describe("while the database is away", () => {
    const down = () =>
      Promise.reject(Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }));

    it("serves a key found live within the stale window, then refuses with the outage (never a 401)", async () => {
      let away = false;
      const { db } = fakeDb(() => (away ? down() : [KEY]));
      const cache = new ApiKeyCache({ staleMs: 60_000 });
      cache.watching(true);
      const secret = newSecret();
      expect(await cache.find(db, secret, 0)).toEqual(KEY);
      away = true;
      // Past the 30 s cache, the lookup fails: the key still works from the entry until 60 s after it was read.
      expect(await cache.find(db, secret, 45_000)).toEqual(KEY);
      expect(await cache.find(db, secret, 59_999)).toEqual(KEY);
      await expect(cache.find(db, secret, 60_000)).rejects.toMatchObject({ code: "ECONNREFUSED" });
      // A secret the cache never saw: the outage, not "unknown key".
      await expect(cache.find(db, newSecret(), 1_000)).rejects.toMatchObject({ code: "ECONNREFUSED" });
    });

    it("keeps a revocation heard before the outage, and a key's expiry, and serves nothing on other errors", async () => {
      let answer: () => ResolvedKey[] | Promise<ResolvedKey[]> = () => [KEY];
      const { db } = fakeDb(() => answer());
      const cache = new ApiKeyCache({ staleMs: 60_000 });
      cache.watching(true);
      const revoked = newSecret();
      await cache.find(db, revoked, 0);
      cache.apply({ kind: "key", keyId: KEY.id } as never);
      answer = down;
      await expect(cache.find(db, revoked, 40_000)).rejects.toMatchObject({ code: "ECONNREFUSED" });

      answer = () => [{ ...KEY, id: "k2", expiresAt: new Date(50_000) } as unknown as ResolvedKey];
      const expiring = newSecret();
      await cache.find(db, expiring, 0);
      answer = down;
      expect(await cache.find(db, expiring, 40_000)).toMatchObject({ id: "k2" });
      expect(await cache.check(db, expiring, 50_000)).toMatchObject({ status: "expired" });

      // A bug is not an outage: it is thrown on, the stale entry unused.
      answer = () => Promise.reject(new TypeError("bad row"));
      await expect(cache.find(db, expiring, 40_000)).rejects.toThrow("bad row");

      const off = new ApiKeyCache({ staleMs: 0 });
      answer = () => [KEY];
      const secret = newSecret();
      await off.find(db, secret, 0);
      answer = down;
      await expect(off.find(db, secret, 31_000)).rejects.toMatchObject({ code: "ECONNREFUSED" });
    });

    it("reads the window from KEY_CACHE_STALE_SECONDS, refusing nonsense", () => {
      expect(keyStaleSecondsFromEnv({} as NodeJS.ProcessEnv)).toBe(60);
      expect(keyStaleSecondsFromEnv({ KEY_CACHE_STALE_SECONDS: "0" } as unknown as NodeJS.ProcessEnv)).toBe(
        0,
      );
      for (const bad of ["-1", "1.5", "3601", "soon"])
        expect(() =>
          keyStaleSecondsFromEnv({ KEY_CACHE_STALE_SECONDS: bad } as unknown as NodeJS.ProcessEnv),
        ).toThrow(/KEY_CACHE_STALE_SECONDS must be/);
    });
  });
});
