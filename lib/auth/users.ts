import "server-only";
import { and, asc, eq, sql } from "drizzle-orm";
import type { Database } from "@/db";
import { type AppUser, appUser, type MembershipRole, membership, tenant } from "@/db/schema";

/** A tenant the user may switch to, their role in it, and whether they edit its prompts (admins always do). */
export type TenantAccess = {
  id: string;
  name: string;
  slug: string;
  role: MembershipRole;
  promptEditor: boolean;
  /** Whether they may work the review queues open to reviewers (admins work every queue by role). */
  reviewer: boolean;
};

/** Who is asking, resolved from the database on every request (the session cookie only names the user). */
export type UserContext = {
  user: { id: string; email: string; name: string; isSuperAdmin: boolean; sessionEpoch: number };
  /** Tenants the user may switch to: their memberships, or every tenant for the super admin. */
  tenants: TenantAccess[];
  /** The active tenant; null for a super admin looking at the whole platform, or a user with no membership. */
  tenant: TenantAccess | null;
  role: MembershipRole | null;
};

export async function findUserByEmail(
  db: Pick<Database, "select">,
  email: string,
): Promise<AppUser | undefined> {
  const [row] = await db
    .select()
    .from(appUser)
    .where(eq(sql`lower(${appUser.email})`, email.trim().toLowerCase()))
    .limit(1);
  return row;
}

/**
 * Loads the user and their tenants; null when the user is gone or disabled, or when the session's epoch is not
 * the user's (they signed out their other sessions). `activeTenantId` is honoured only if the user may use
 * that tenant; otherwise a member falls back to their first tenant.
 */
export async function loadUserContext(
  db: Database,
  userId: string,
  activeTenantId: string | null | undefined,
  sessionEpoch?: number,
): Promise<UserContext | null> {
  const [user] = await db.select().from(appUser).where(eq(appUser.id, userId)).limit(1);
  if (!user || user.disabled) return null;
  if (sessionEpoch !== undefined && sessionEpoch !== user.sessionEpoch) return null;
  const tenants: TenantAccess[] = user.isSuperAdmin
    ? (
        await db
          .select({ id: tenant.id, name: tenant.name, slug: tenant.slug })
          .from(tenant)
          .orderBy(asc(tenant.name))
      ).map((t) => ({ ...t, role: "admin" as const, promptEditor: true, reviewer: true }))
    : await db
        .select({
          id: tenant.id,
          name: tenant.name,
          slug: tenant.slug,
          role: membership.role,
          promptEditor: sql<boolean>`(${membership.role} = 'admin' or ${membership.promptEditor})`,
          reviewer: sql<boolean>`(${membership.role} = 'admin' or ${membership.reviewer})`,
        })
        .from(membership)
        .innerJoin(tenant, eq(tenant.id, membership.tenantId))
        .where(and(eq(membership.userId, userId), eq(tenant.disabled, false)))
        .orderBy(asc(tenant.name));
  const requested = activeTenantId ? tenants.find((t) => t.id === activeTenantId) : undefined;
  const active = requested ?? (user.isSuperAdmin ? null : (tenants[0] ?? null));
  return {
    user: {
      id: user.id,
      email: user.email,
      name: user.name,
      isSuperAdmin: user.isSuperAdmin,
      sessionEpoch: user.sessionEpoch,
    },
    tenants,
    tenant: active,
    role: active?.role ?? null,
  };
}

/** Whether a user may sign in: the super admin always; anyone else needs a membership in an enabled tenant. */
export async function mayEnter(db: Database, userId: string): Promise<boolean> {
  const [user] = await db
    .select({ isSuperAdmin: appUser.isSuperAdmin, disabled: appUser.disabled })
    .from(appUser)
    .where(eq(appUser.id, userId))
    .limit(1);
  if (!user || user.disabled) return false;
  if (user.isSuperAdmin) return true;
  const [row] = await db
    .select({ id: membership.tenantId })
    .from(membership)
    .innerJoin(tenant, eq(tenant.id, membership.tenantId))
    .where(and(eq(membership.userId, userId), eq(tenant.disabled, false)))
    .limit(1);
  return Boolean(row);
}
