import { eq } from "drizzle-orm";
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
    async userId(email: string) {
      const [row] = await db.select({ id: appUser.id }).from(appUser).where(eq(appUser.email, email));
      return row!.id;
    },
    async tenantId(slug: string) {
      const [row] = await db.select({ id: tenant.id }).from(tenant).where(eq(tenant.slug, slug));
      return row!.id;
    },
    async close() {
      await app.close();
      installContainer(undefined);
      await test.drop();
    },
  };
}
