import "server-only";
import { activeTenantOrThrow } from "@/lib/auth/access";
import type { UserContext } from "@/lib/auth/users";
import { AppError, forbidden } from "@/lib/core/errors/app-error";
import type { AlertOwner } from "./store";

/**
 * Whose rules and channels a request reaches: `?scope=platform` the platform's (the super admin only), else the
 * active tenant's (the route's guard has made sure its user is an admin of it).
 */
export function alertOwnerOf(req: Request, auth: UserContext): AlertOwner {
  const scope = new URL(req.url).searchParams.get("scope");
  if (scope === "platform") {
    if (!auth.user.isSuperAdmin) throw forbidden("platform alerts are the super admin's");
    return null;
  }
  if (scope !== null && scope !== "tenant")
    throw new AppError("validation_failed", 'scope is "platform" or left out', {
      fields: { scope: ['"platform", or left out for the active tenant'] },
    });
  return activeTenantOrThrow(auth).id;
}
