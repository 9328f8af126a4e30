import { eq } from "drizzle-orm";
import { setDatabaseForTests } from "@/db";
import { appUser, tenant } from "@/db/schema";
import { seedDemo, seedDemoOrders } from "@/lib/demo/seed";
import { createMigratedDatabase, type TestDatabase, type TestDbKind } from "./db";

/** A migrated, demo-seeded database installed as the app's database, with lookups for the demo ids. */
export async function useSeededAppDatabase(kind: TestDbKind) {
  const test: TestDatabase = await createMigratedDatabase(kind);
  await seedDemo(test.handle.db);
  await seedDemoOrders(test.handle.db);
  setDatabaseForTests(test.handle);
  const db = test.handle.db;
  return {
    db,
    async userId(email: string) {
      const [row] = await db.select({ id: appUser.id }).from(appUser).where(eq(appUser.email, email));
      return row!.id;
    },
    async tenantId(slug: string) {
      const [row] = await db.select({ id: tenant.id }).from(tenant).where(eq(tenant.slug, slug));
      return row!.id;
    },
    async close() {
      setDatabaseForTests(undefined);
      await test.drop();
    },
  };
}
