import "server-only";
import { count, eq } from "drizzle-orm";
import type { Database } from "@/db/client";
import { appUser, demoOrder, membership, tenant } from "@/db/schema";
import { hashPassword } from "@/lib/auth/password";

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
        .values({
          email: u.email,
          name: u.name,
          passwordHash,
          isSuperAdmin: "superAdmin" in u,
          emailVerified: true,
        })
        .returning();
      for (const [slug, role] of u.memberships) {
        await tx.insert(membership).values({ tenantId: tenantId(slug), userId: user!.id, role });
      }
    }
  });
  return true;
}

type OrderSeed = {
  number: string;
  customer: string;
  status: "open" | "shipped" | "delivered" | "cancelled";
  totalUsd: string;
};

export const DEMO_ORDERS: Record<string, OrderSeed[]> = {
  acme: [
    { number: "A-1001", customer: "Wile E. Coyote", status: "open", totalUsd: "129.90" },
    { number: "A-1002", customer: "Road Runner Ltd", status: "shipped", totalUsd: "42.00" },
    { number: "A-1003", customer: "Wile E. Coyote", status: "open", totalUsd: "1999.00" },
    { number: "A-1004", customer: "Marvin Corp", status: "delivered", totalUsd: "15.25" },
    { number: "A-1005", customer: "Elmer Fudd", status: "cancelled", totalUsd: "77.70" },
    { number: "A-1006", customer: "Marvin Corp", status: "open", totalUsd: "310.00" },
  ],
  globex: [
    { number: "G-2001", customer: "Hank Scorpio", status: "open", totalUsd: "5000.00" },
    { number: "G-2002", customer: "Homer Simpson", status: "delivered", totalUsd: "12.50" },
    { number: "G-2003", customer: "Frank Grimes", status: "shipped", totalUsd: "88.80" },
    { number: "G-2004", customer: "Hank Scorpio", status: "cancelled", totalUsd: "640.00" },
    { number: "G-2005", customer: "Homer Simpson", status: "open", totalUsd: "23.45" },
  ],
};

/** Gives each demo tenant its orders (for the orders tool set) if it has none yet. Returns how many were added. */
export async function seedDemoOrders(db: Database): Promise<number> {
  let added = 0;
  for (const [slug, orders] of Object.entries(DEMO_ORDERS)) {
    const [t] = await db.select({ id: tenant.id }).from(tenant).where(eq(tenant.slug, slug)).limit(1);
    if (!t) continue;
    const [existing] = await db.select({ n: count() }).from(demoOrder).where(eq(demoOrder.tenantId, t.id));
    if ((existing?.n ?? 0) > 0) continue;
    await db.insert(demoOrder).values(orders.map((o) => ({ ...o, tenantId: t.id })));
    added += orders.length;
  }
  return added;
}
