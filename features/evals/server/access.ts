import "server-only";
import { activeTenantOrThrow, isTenantAdmin } from "@/lib/auth/access";
import type { UserContext } from "@/lib/auth/users";
import { forbidden } from "@/lib/core/errors/app-error";

/** The active tenant, for tenant admins and prompt editors; anyone else (members) is refused with a 403. */
export function evalAccess(auth: UserContext): { tenantId: string } {
  const tenant = activeTenantOrThrow(auth);
  if (isTenantAdmin(auth) || tenant.promptEditor) return { tenantId: tenant.id };
  throw forbidden("evaluations are for tenant admins and prompt editors");
}
