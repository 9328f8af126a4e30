import "server-only";
import { eq } from "drizzle-orm";
import type { Database } from "@/db";
import { tenant } from "@/db/schema";
import type { WebFetchPolicy } from "./toolsets/web/policy";

/** The tenant's web_fetch setting as stored (an unknown tenant: off, so nothing is fetched for it). */
export async function webFetchPolicyOf(db: Database, tenantId: string): Promise<WebFetchPolicy> {
  const [row] = await db
    .select({ mode: tenant.webFetchMode, domains: tenant.webFetchDomains })
    .from(tenant)
    .where(eq(tenant.id, tenantId));
  return row ?? { mode: "off", domains: [] };
}
