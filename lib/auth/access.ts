// What a signed-in user may reach, read from their context alone: no session, no framework, so the worker and
// the gateway processes can use it (lib/auth/guards.ts re-exports it for routes).
import { AppError, notFound } from "@/lib/core/errors/app-error";
import type { TenantAccess, UserContext } from "./users";

export const isTenantAdmin = (auth: UserContext) => auth.user.isSuperAdmin || auth.role === "admin";

/** The active tenant, for actions that happen inside one (chat, keys); the platform view has none. */
export function activeTenantOrThrow(auth: UserContext): TenantAccess {
  if (!auth.tenant)
    throw new AppError("bad_request", "choose a tenant first (the tenant switcher in the top bar)");
  return auth.tenant;
}

/** The tenant if the user may use it; another tenant answers 404, so its existence is not revealed. */
export function tenantAccessOrThrow(auth: UserContext, tenantId: string): TenantAccess {
  const found = auth.tenants.find((t) => t.id === tenantId);
  if (!found) throw notFound("tenant");
  return found;
}
