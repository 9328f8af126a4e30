import { count } from "drizzle-orm";
import { hashPassword } from "@/lib/auth/password";
import type { Database } from "./client";
import { appUser, membership, tenant } from "./schema";

export const DEMO_PASSWORD = "tollgate-demo";

export const DEMO_USERS = [
  { email: "root@tollgate.test", name: "Platform Root", superAdmin: true, memberships: [] },
  { email: "admin@acme.test", name: "Ada Admin (Acme)", memberships: [["acme", "admin"]] },
  { email: "member@acme.test", name: "Max Member (Acme)", memberships: [["acme", "member"]] },
  { email: "admin@globex.test", name: "Gia Admin (Globex)", memberships: [["globex", "admin"]] },
  { email: "member@globex.test", name: "Gus Member (Globex)", memberships: [["globex", "member"]] },
  {
    email: "multi@tollgate.test",
    name: "Mia Multi",
    memberships: [
      ["acme", "member"],
      ["globex", "admin"],
    ],
  },
] as const;

/** Seeds the demo tenants and accounts, but only into an empty database. Returns whether it seeded. */
export async function seedDemo(db: Database): Promise<boolean> {
  const [existing] = await db.select({ n: count() }).from(tenant);
  if ((existing?.n ?? 0) > 0) return false;
  const passwordHash = await hashPassword(DEMO_PASSWORD);
  await db.transaction(async (tx) => {
    const tenants = await tx
      .insert(tenant)
      .values([
        { name: "Acme", slug: "acme" },
        { name: "Globex", slug: "globex" },
      ])
      .returning();
    const tenantId = (slug: string) => tenants.find((t) => t.slug === slug)!.id;
    for (const u of DEMO_USERS) {
      const [user] = await tx
        .insert(appUser)
        .values({ email: u.email, name: u.name, passwordHash, isSuperAdmin: "superAdmin" in u })
        .returning();
      for (const [slug, role] of u.memberships) {
        await tx.insert(membership).values({ tenantId: tenantId(slug), userId: user!.id, role });
      }
    }
  });
  return true;
}
