import "server-only";
import { eq } from "drizzle-orm";
import type { z } from "zod";
import type { Database } from "@/db";
import { tenant } from "@/db/schema";
import { type Actor, recordChange } from "@/lib/changes/changes";
import { notFound } from "@/lib/core/errors/app-error";
import type { WebFetchSettings, webFetchSettingsInput } from "../contracts";

/** The tenant's web_fetch setting (what web_fetch reads on every call). */
export async function readWebFetchSettings(db: Database, tenantId: string): Promise<WebFetchSettings> {
  const [row] = await db
    .select({ mode: tenant.webFetchMode, domains: tenant.webFetchDomains })
    .from(tenant)
    .where(eq(tenant.id, tenantId));
  if (!row) throw notFound("tenant");
  return row;
}

/** Sets whether (and where) the tenant's agent may fetch web pages; a change is in the admin-change log. */
export async function saveWebFetchSettings(
  db: Database,
  actor: Actor,
  tenantId: string,
  input: z.output<typeof webFetchSettingsInput>,
): Promise<WebFetchSettings> {
  const after: WebFetchSettings = { mode: input.mode, domains: [...new Set(input.domains)].sort() };
  return db.transaction(async (tx) => {
    const [before] = await tx
      .select({ mode: tenant.webFetchMode, domains: tenant.webFetchDomains })
      .from(tenant)
      .where(eq(tenant.id, tenantId))
      .for("update");
    if (!before) throw notFound("tenant");
    await tx
      .update(tenant)
      .set({ webFetchMode: after.mode, webFetchDomains: after.domains })
      .where(eq(tenant.id, tenantId));
    if (JSON.stringify(before) !== JSON.stringify(after))
      await recordChange(tx, actor, {
        tenantId,
        action: "web_fetch_settings.updated",
        objectType: "web_fetch_settings",
        objectId: tenantId,
        before,
        after,
      });
    return after;
  });
}
