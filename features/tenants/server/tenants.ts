import "server-only";
import { desc, eq, sql } from "drizzle-orm";
import type { z } from "zod";
import type { Database } from "@/db";
import { membership, sysAgentTurn, tenant, usageDaily } from "@/db/schema";
import type {
  createTenantInput,
  signInSettingsInput,
  TenantSummary,
  updateTenantInput,
} from "@/features/tenants/contracts";
import { type Actor, recordChange } from "@/lib/changes/changes";
import { AppError, notFound } from "@/lib/core/errors";
import { announceKeyEvent } from "@/lib/keys/api-keys";
import { notifyInTransaction } from "@/lib/keys/key-events";
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

export async function readSignInSettings(db: Database, tenantId: string) {
  const [row] = await db
    .select({ ssoDomains: tenant.ssoDomains })
    .from(tenant)
    .where(eq(tenant.id, tenantId));
  if (!row) throw notFound("tenant");
  return row;
}

/** Which email domains may join this tenant through single sign-on (as members). */
export async function saveSignInSettings(
  db: Database,
  actor: Actor,
  tenantId: string,
  input: z.output<typeof signInSettingsInput>,
) {
  const ssoDomains = [...new Set(input.ssoDomains)].sort();
  return db.transaction(async (tx) => {
    const [before] = await tx
      .select({ ssoDomains: tenant.ssoDomains })
      .from(tenant)
      .where(eq(tenant.id, tenantId))
      .for("update");
    if (!before) throw notFound("tenant");
    await tx.update(tenant).set({ ssoDomains }).where(eq(tenant.id, tenantId));
    if (JSON.stringify(before.ssoDomains) !== JSON.stringify(ssoDomains))
      await recordChange(tx, actor, {
        tenantId,
        action: "sign_in_settings.updated",
        objectType: "sign_in_settings",
        objectId: tenantId,
        before,
        after: { ssoDomains },
      });
    return { ssoDomains };
  });
}
