import { eq } from "drizzle-orm";
import Redis from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "@/db/client";
import { appUser, tenant } from "@/db/schema";
import { seedDemo } from "@/features/demo/server/seed";
import { createApiKey, revokeApiKey } from "@/features/keys/server/keys";
import { updateTenant } from "@/features/tenants/server/tenants";
import { ApiKeyCache, processKeyCache } from "@/lib/auth/api-keys";
import {
  KEY_EVENTS_CLIENT_NAME,
  type KeyEventListener,
  listenForKeyEvents,
  startKeyEvents,
} from "@/lib/auth/key-events";
import { createMigratedDatabase, postgresAdminUrl, type TestDatabase, testDbKinds } from "../helpers/db";

const redisUrl = process.env.TEST_REDIS_URL ?? "";
const setups = [
  ...(postgresAdminUrl
    ? [{ name: "PostgreSQL LISTEN/NOTIFY", kind: "postgres" as const, via: "postgres" }]
    : []),
  ...(redisUrl ? testDbKinds.map((kind) => ({ name: `Redis pub/sub, ${kind}`, kind, via: "redis" })) : []),
];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Asks until `ask` gives `want` or the deadline passes; returns what it saw last and how long it took. */
async function pollUntil<T>(ask: () => Promise<T>, want: T, deadlineMs = 3_000) {
  const started = performance.now();
  let seen = await ask();
  while (seen !== want && performance.now() - started < deadlineMs) {
    await sleep(10);
    seen = await ask();
  }
  return { seen, ms: performance.now() - started };
}

describe("the key cache, on its own", () => {
  it("keeps entries 30 s while its listener is up, 2 s while it is down, and forgets them all when it comes back", async () => {
    const test = await createMigratedDatabase("pglite");
    try {
      await seedDemo(test.handle.db);
      const db = test.handle.db;
      const [acme] = await db.select().from(tenant).where(eq(tenant.slug, "acme"));
      const [admin] = await db.select().from(appUser).where(eq(appUser.email, "admin@acme.test"));
      const { secret, key } = await createApiKey(db, { tenantId: acme!.id, name: "k", createdBy: admin!.id });
      const cache = new ApiKeyCache();
      cache.watching(true);
      const t0 = 1_000_000;
      expect(await cache.find(db, secret, t0)).toMatchObject({ id: key.id });
      // Revoked behind the cache's back (as if the notification were lost).
      await db.execute(`update api_key set revoked_at = now() where id = '${key.id}'`);
      expect(await cache.find(db, secret, t0 + 20_000)).not.toBeNull();
      cache.watching(false);
      expect(await cache.find(db, secret, t0 + 1_000)).not.toBeNull();
      expect(await cache.find(db, secret, t0 + 2_500)).toBeNull();

      await db.execute(`update api_key set revoked_at = null where id = '${key.id}'`);
      expect(await cache.find(db, secret, t0 + 5_000)).not.toBeNull();
      await db.execute(`update api_key set revoked_at = now() where id = '${key.id}'`);
      cache.watching(true);
      expect(await cache.find(db, secret, t0 + 5_001)).toBeNull();
    } finally {
      await test.drop();
    }
  });
});

describe.each(setups)("revocation seen by a second instance at once: $name", ({ kind, via }) => {
  let test: TestDatabase;
  let second: Awaited<ReturnType<typeof openDatabase>> | undefined;
  let cacheB: ApiKeyCache;
  let listenerB: KeyEventListener;
  let stopA: () => Promise<void>;
  let redis: Redis | undefined;
  let tenantId: string;
  let admin: { id: string; email: string };
  const prefix = `tollgate-keys-test-${process.pid}-${Date.now()}:`;

  const dbA = () => test.handle.db;
  const dbB = () => (second ?? test.handle).db;

  beforeAll(async () => {
    test = await createMigratedDatabase(kind);
    await seedDemo(test.handle.db);
    // Instance B: its own database connection (PGlite has one per process) and its own key cache.
    if (kind === "postgres") second = await openDatabase({ kind: "postgres", url: test.url!, max: 2 });
    const sourceB = via === "redis" ? { redisUrl, redisPrefix: prefix } : { postgresUrl: test.url! };
    cacheB = new ApiKeyCache();
    listenerB = listenForKeyEvents(cacheB, sourceB, { retryMs: 100 });
    // Instance A (this process) publishes on Redis when that is the feed; NOTIFY needs nothing started.
    stopA = startKeyEvents(processKeyCache(), via === "redis" ? { redisUrl, redisPrefix: prefix } : {});
    await listenerB.ready;
    if (via === "redis") redis = new Redis(redisUrl);
    const [acme] = await dbA().select().from(tenant).where(eq(tenant.slug, "acme"));
    const [user] = await dbA().select().from(appUser).where(eq(appUser.email, "root@tollgate.test"));
    tenantId = acme!.id;
    admin = { id: user!.id, email: user!.email };
  });
  afterAll(async () => {
    await listenerB?.stop();
    await stopA?.();
    await redis?.quit();
    await second?.close();
    await test?.drop();
  });

  const newKey = () => createApiKey(dbA(), { tenantId, name: "app", createdBy: admin.id });
  const liveOnB = async (secret: string) => (await cacheB.find(dbB(), secret)) !== null;

  it("a key used on B and revoked on A is refused on B within a second", async () => {
    const { secret, key } = await newKey();
    expect(await liveOnB(secret)).toBe(true);
    expect(cacheB.isWatched).toBe(true);
    await revokeApiKey(dbA(), { tenantId, id: key.id });
    const { seen, ms } = await pollUntil(() => liveOnB(secret), false);
    expect(seen).toBe(false);
    expect(ms).toBeLessThan(1_000);
  });

  it("a disabled tenant's key used on B is refused on B within a second; re-enabled, it works there again", async () => {
    const { secret } = await newKey();
    expect(await liveOnB(secret)).toBe(true);
    await updateTenant(dbA(), admin, tenantId, { disabled: true });
    try {
      const off = await pollUntil(() => liveOnB(secret), false);
      expect(off.seen).toBe(false);
      expect(off.ms).toBeLessThan(1_000);
    } finally {
      await updateTenant(dbA(), admin, tenantId, { disabled: false });
    }
    const on = await pollUntil(() => liveOnB(secret), true);
    expect(on.seen).toBe(true);
    expect(on.ms).toBeLessThan(1_000);
  });

  it("when B's listener connection is killed, B stops trusting its cache, reconnects, and hears revocations again", async () => {
    if (via === "redis") {
      const clients = (await redis!.client("LIST")) as string;
      const ids = clients
        .split("\n")
        .filter((line) => line.includes(`name=${KEY_EVENTS_CLIENT_NAME}-${process.pid} `))
        .map((line) => /(?:^|\s)id=(\d+)/.exec(line)![1]!);
      expect(ids.length).toBeGreaterThan(0);
      for (const id of ids) await redis!.client("KILL", "ID", id);
    } else {
      const killed = (await dbA().execute(
        `select pg_terminate_backend(pid) from pg_stat_activity where application_name = '${KEY_EVENTS_CLIENT_NAME}' and datname = current_database()`,
      )) as unknown as unknown[];
      expect(killed.length).toBeGreaterThan(0);
    }
    expect((await pollUntil(async () => cacheB.isWatched, false)).seen).toBe(false);
    expect((await pollUntil(async () => cacheB.isWatched, true, 10_000)).seen).toBe(true);

    const { secret, key } = await newKey();
    expect(await liveOnB(secret)).toBe(true);
    await revokeApiKey(dbA(), { tenantId, id: key.id });
    const { seen, ms } = await pollUntil(() => liveOnB(secret), false);
    expect(seen).toBe(false);
    expect(ms).toBeLessThan(1_000);
  });
});
