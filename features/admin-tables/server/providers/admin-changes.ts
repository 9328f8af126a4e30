import "server-only";
import { and, eq, sql } from "drizzle-orm";
import { type Database, getDb } from "@/db";
import { adminChange, tenant } from "@/db/schema";
import { likeContains } from "@/db/sql-text";
import type { PageProvider, ProviderContext } from "@/features/admin-tables/contracts";
import { uuidOr404 } from "@/lib/core/schema/uuid";
import { sqlProvider } from "../sql-provider";

const c = adminChange;

const fields = {
  id: c.id,
  createdAt: c.createdAt,
  tenantId: c.tenantId,
  tenantName: tenant.name,
  actorId: c.actorId,
  actorEmail: c.actorEmail,
  action: c.action,
  objectType: c.objectType,
  objectId: c.objectId,
  before: c.before,
  after: c.after,
  requestId: c.requestId,
};

/** The admin-change log (admin_change) for /dev/admin/changes: own tenant for its admins, all for the super admin. */
export function adminChangesProvider(database: () => Promise<Database> = getDb): PageProvider {
  return sqlProvider(database, {
    table: c,
    tenantColumn: c.tenantId,
    idColumn: c.id,
    fields,
    joins: [{ table: tenant, on: eq(tenant.id, c.tenantId) }],
    sorts: { createdAt: { expr: c.createdAt, type: "timestamptz" } },
    filters: {
      actor: (v) => sql`${c.actorEmail} ilike ${likeContains(v)}`,
      action: (v) => sql`${c.action} ilike ${likeContains(v)}`,
      objectId: (v) => eq(c.objectId, v.trim()),
      requestId: (v) => eq(c.requestId, v.trim()),
    },
    dateFilters: { createdAt: c.createdAt },
    segmentColumn: c.objectType,
    suggestions: {
      actor: { value: c.actorEmail, recent: c.createdAt },
      action: { value: c.action, recent: c.createdAt },
    },
    measures: {},
    dimensions: { objectType: c.objectType, day: sql`date_trunc('day', ${c.createdAt})::date` },
    detail: changeDetail,
  });
}

async function changeDetail(db: Database, ctx: ProviderContext, rawId: string) {
  const id = uuidOr404(rawId);
  const [row] = await db
    .select(fields)
    .from(c)
    .leftJoin(tenant, eq(tenant.id, c.tenantId))
    .where(ctx.tenantId ? and(eq(c.id, id), eq(c.tenantId, ctx.tenantId)) : eq(c.id, id))
    .limit(1);
  if (!row) return null;
  return { row: { ...row, createdAt: row.createdAt.toISOString() } };
}
