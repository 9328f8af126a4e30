import "server-only";
import { and, asc, desc, eq, inArray, ne, notInArray, sql } from "drizzle-orm";
import type { z } from "zod";
import type { Database, Executor } from "@/db";
import { membership, sysAgentTurn, tenant, tenantSsoDomain, usageDaily } from "@/db/schema";
import type {
  createTenantInput,
  signInSettingsInput,
  TenantSummary,
  updateTenantInput,
} from "@/features/tenants/contracts";
import { announceKeyEvent } from "@/lib/auth/api-keys";
import { notifyInTransaction } from "@/lib/auth/key-events";
import { type Actor, recordChange } from "@/lib/changes/changes";
import { AppError, notFound } from "@/lib/core/errors/app-error";
import { invalidatePolicy } from "@/lib/pipeline/policy";

const summaryFields = {
  id: tenant.id,
  name: tenant.name,
  slug: tenant.slug,
  disabled: tenant.disabled,
  createdAt: tenant.createdAt,
  // Qualified by hand: in a one-table select Drizzle writes a bare "id", which the subquery would take as its own.
  members: sql<number>`(select count(*)::int from ${membership} m where m.tenant_id = "tenant"."id")`,
  lastActivityAt: sql<
    string | null
  >`(select to_char(max(t.started_at) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') from ${sysAgentTurn} t where t.tenant_id = "tenant"."id")`,
  spendThisMonth: sql<string>`(select coalesce(sum(u.cost), 0)::text from ${usageDaily} u where u.tenant_id = "tenant"."id" and u.day >= date_trunc('month', now())::date)`,
};

/** Every tenant with its member count, last activity and spend this month (super admin). */
export async function listTenants(db: Database): Promise<TenantSummary[]> {
  return db.select(summaryFields).from(tenant).orderBy(desc(tenant.createdAt));
}

export async function getTenantSummary(db: Database, id: string): Promise<TenantSummary> {
  const [row] = await db.select(summaryFields).from(tenant).where(eq(tenant.id, id)).limit(1);
  if (!row) throw notFound("tenant");
  return row;
}

const slugOf = (name: string) =>
  name
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40) || "tenant";

export async function createTenant(
  db: Database,
  actor: Actor,
  input: z.output<typeof createTenantInput>,
): Promise<TenantSummary> {
  const slug = input.slug ?? slugOf(input.name);
  const id = await db.transaction(async (tx) => {
    // The unique index decides a race between two creations; the loser gets a 409, not a 500.
    const [row] = await tx
      .insert(tenant)
      .values({ name: input.name, slug })
      .onConflictDoNothing()
      .returning();
    if (!row)
      throw new AppError("conflict", `the slug "${slug}" is taken`, {
        fields: { slug: [`"${slug}" is taken`] },
      });
    await recordChange(tx, actor, {
      tenantId: row!.id,
      action: "tenant.created",
      objectType: "tenant",
      objectId: row!.id,
      before: null,
      after: { name: row!.name, slug: row!.slug, disabled: false },
    });
    return row!.id;
  });
  return getTenantSummary(db, id);
}

/**
 * Renames, disables or re-enables a tenant; nothing is deleted. A disabled tenant's members cannot sign in or
 * use it (guards re-read it on every request) and its API keys answer 401.
 */
export async function updateTenant(
  db: Database,
  actor: Actor,
  id: string,
  input: z.output<typeof updateTenantInput>,
): Promise<TenantSummary> {
  const keysChanged = await db.transaction(async (tx) => {
    const [before] = await tx.select().from(tenant).where(eq(tenant.id, id)).for("update");
    if (!before) throw notFound("tenant");
    const changes: { action: string; before: Record<string, unknown>; after: Record<string, unknown> }[] = [];
    if (input.name !== undefined && input.name !== before.name)
      changes.push({ action: "tenant.renamed", before: { name: before.name }, after: { name: input.name } });
    if (input.disabled !== undefined && input.disabled !== before.disabled)
      changes.push({
        action: input.disabled ? "tenant.disabled" : "tenant.enabled",
        before: { disabled: before.disabled },
        after: { disabled: input.disabled },
      });
    if (!changes.length) return false;
    await tx
      .update(tenant)
      .set({ name: input.name ?? before.name, disabled: input.disabled ?? before.disabled })
      .where(eq(tenant.id, id));
    for (const c of changes)
      await recordChange(tx, actor, { tenantId: id, objectType: "tenant", objectId: id, ...c });
    const disabledChanged = input.disabled !== undefined && input.disabled !== before.disabled;
    if (disabledChanged) await notifyInTransaction(tx, { kind: "tenant", tenantId: id });
    return disabledChanged;
  });
  // A disabled tenant's keys stop working at once, on every instance (key-events.ts).
  if (keysChanged) await announceKeyEvent({ kind: "tenant", tenantId: id });
  invalidatePolicy(id);
  return getTenantSummary(db, id);
}

async function domainsOf(db: Executor, tenantId: string): Promise<string[]> {
  const rows = await db
    .select({ domain: tenantSsoDomain.domain })
    .from(tenantSsoDomain)
    .where(eq(tenantSsoDomain.tenantId, tenantId))
    .orderBy(asc(tenantSsoDomain.domain));
  return rows.map((r) => r.domain);
}

export async function readSignInSettings(db: Database, tenantId: string) {
  const [row] = await db.select({ id: tenant.id }).from(tenant).where(eq(tenant.id, tenantId));
  if (!row) throw notFound("tenant");
  return { ssoDomains: await domainsOf(db, tenantId) };
}

/**
 * Which email domains may join this tenant through single sign-on (as members). The platform super admin's to
 * grant (the route checks): whoever holds a domain receives everyone who signs in with it. A domain belongs to at
 * most one tenant; claiming one another tenant holds is a 409 naming it.
 */
export async function saveSignInSettings(
  db: Database,
  actor: Actor,
  tenantId: string,
  input: z.output<typeof signInSettingsInput>,
) {
  const ssoDomains = [...new Set(input.ssoDomains)].sort();
  return db.transaction(async (tx) => {
    const [locked] = await tx
      .select({ id: tenant.id })
      .from(tenant)
      .where(eq(tenant.id, tenantId))
      .for("update");
    if (!locked) throw notFound("tenant");
    const before = await domainsOf(tx, tenantId);
    const taken = async () =>
      ssoDomains.length === 0
        ? []
        : tx
            .select({ domain: tenantSsoDomain.domain, tenantName: tenant.name })
            .from(tenantSsoDomain)
            .innerJoin(tenant, eq(tenant.id, tenantSsoDomain.tenantId))
            .where(and(inArray(tenantSsoDomain.domain, ssoDomains), ne(tenantSsoDomain.tenantId, tenantId)))
            .orderBy(asc(tenantSsoDomain.domain));
    const refuseTaken = (rows: { domain: string; tenantName: string }[]) => {
      if (!rows.length) return;
      const fields = Object.fromEntries(
        rows.map((r) => [
          `ssoDomains.${input.ssoDomains.indexOf(r.domain)}`,
          [`already belongs to the tenant "${r.tenantName}"`],
        ]),
      );
      throw new AppError(
        "conflict",
        `${rows.map((r) => `${r.domain} (tenant "${r.tenantName}")`).join(", ")} already ${rows.length === 1 ? "belongs" : "belong"} to another tenant: a domain joins one tenant only; remove it there first`,
        { fields },
      );
    };
    refuseTaken(await taken());
    await tx
      .delete(tenantSsoDomain)
      .where(
        ssoDomains.length
          ? and(eq(tenantSsoDomain.tenantId, tenantId), notInArray(tenantSsoDomain.domain, ssoDomains))
          : eq(tenantSsoDomain.tenantId, tenantId),
      );
    if (ssoDomains.length)
      await tx
        .insert(tenantSsoDomain)
        .values(ssoDomains.map((domain) => ({ domain, tenantId })))
        .onConflictDoNothing();
    // Another tenant may have claimed one between the check and the insert: the primary key kept it theirs.
    refuseTaken(await taken());
    if (JSON.stringify(before) !== JSON.stringify(ssoDomains))
      await recordChange(tx, actor, {
        tenantId,
        action: "sign_in_settings.updated",
        objectType: "sign_in_settings",
        objectId: tenantId,
        before: { ssoDomains: before },
        after: { ssoDomains },
      });
    return { ssoDomains };
  });
}
