import { eq } from "drizzle-orm";
import type { Database } from "@/db";
import { openDatabase } from "@/db/client";
import { appUser, tenant } from "@/db/schema";
import { seedDemo, seedDemoOrders } from "@/features/demo/server/seed";
import { type Container, type ContainerOptions, createContainer, installContainer } from "@/server/container";
import { createMigratedDatabase, type TestDatabase, type TestDbKind } from "./db";

/**
 * A migrated, demo-seeded database, installed as the app's database inside a container of the test's own (the
 * demo's tools registered), with lookups for the demo ids.
 */
export async function useSeededAppDatabase(kind: TestDbKind) {
  const test: TestDatabase = await createMigratedDatabase(kind);
  await seedDemo(test.handle.db);
  await seedDemoOrders(test.handle.db);
  const db = test.handle.db;
  let app: Container = installContainer(createContainer({ database: test.handle, demo: true }));
  const pools: { close(): Promise<void> }[] = [];
  return {
    db,
    /** The database's address on PostgreSQL (undefined on PGlite), for a second process's own connections. */
    url: test.url,
    /** The installed container (what route handlers reach through `container()`). */
    get container() {
      return app;
    },
    /** Installs a fresh container over the same database (a new gateway, agent, pipeline…). */
    async rebuild(options: Omit<ContainerOptions, "database"> = {}) {
      await app.close();
      app = installContainer(createContainer({ database: test.handle, demo: true, ...options }));
      return app;
    },
    /**
     * A second process's database: a pool of its own on PostgreSQL (closed with the rest); the same handle on
     * PGlite (one connection).
     */
    async secondPool(max = 4): Promise<Database> {
      if (!test.url) return db;
      const handle = await openDatabase({ kind: "postgres", url: test.url, max });
      pools.push(handle);
      return handle.db;
    },
    async userId(email: string) {
      const [row] = await db.select({ id: appUser.id }).from(appUser).where(eq(appUser.email, email));
      return row!.id;
    },
    async tenantId(slug: string) {
      const [row] = await db.select({ id: tenant.id }).from(tenant).where(eq(tenant.slug, slug));
      return row!.id;
    },
    async close() {
      for (const pool of pools.splice(0)) await pool.close();
      await app.close();
      installContainer(undefined);
      await test.drop();
    },
  };
}
