import "server-only";
import type { Database } from "@/db";
import { activeTenantOrThrow, isTenantAdmin, type UserContext } from "@/lib/auth/guards";
import { forbidden } from "@/lib/core/errors";
import { isPromptEditor } from "@/lib/prompts/store";

/** The active tenant, for tenant admins and prompt editors; anyone else (members) is refused with a 403. */
export async function evalAccess(db: Database, auth: UserContext): Promise<{ tenantId: string }> {
  const tenant = activeTenantOrThrow(auth);
  if (isTenantAdmin(auth) || (await isPromptEditor(db, tenant.id, auth.user.id)))
    return { tenantId: tenant.id };
  throw forbidden("evaluations are for tenant admins and prompt editors");
}
