import "server-only";
import { count, eq } from "drizzle-orm";
import { getDb } from "@/db";
import { membership, tenant } from "@/db/schema";
import { notFound } from "@/lib/core/errors/app-error";

export type TenantSummary = { id: string; name: string; slug: string; disabled: boolean; members: number };

/** Callers check access first (tenantAccessOrThrow); this only reads. */
export async function getTenantSummary(tenantId: string): Promise<TenantSummary> {
  const db = await getDb();
  const [row] = await db.select().from(tenant).where(eq(tenant.id, tenantId)).limit(1);
  if (!row) throw notFound("tenant");
  const [members] = await db.select({ n: count() }).from(membership).where(eq(membership.tenantId, tenantId));
  return { id: row.id, name: row.name, slug: row.slug, disabled: row.disabled, members: members?.n ?? 0 };
}
