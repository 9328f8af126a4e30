import "server-only";
import { cache } from "react";
import { getDb } from "@/db";
import { AppError, forbidden, notFound, unauthorized } from "@/lib/core/errors";
import { type RouteContext, route } from "@/lib/http/route";
import { readSessionClaims } from "./session";
import { loadUserContext, type TenantAccess, type UserContext } from "./users";

export type { UserContext } from "./users";
export type AuthedContext<P> = RouteContext<P> & { auth: UserContext };
type AuthedHandler<P> = (req: Request, ctx: AuthedContext<P>) => Promise<Response>;

/** The signed-in user as the database knows them now (once per request); null when signed out (the session
 * revoked or unknown included) or disabled. */
export const currentUser = cache(async (): Promise<UserContext | null> => {
  const claims = await readSessionClaims();
  if (!claims) return null;
  return loadUserContext(await getDb(), claims.userId, claims.tenantId, claims.epoch);
});

export const isTenantAdmin = (auth: UserContext) => auth.user.isSuperAdmin || auth.role === "admin";

/** 401 unless signed in. */
export function withUser<P = Record<string, never>>(handler: AuthedHandler<P>) {
  return route<P>(async (req, ctx) => {
    const auth = await currentUser();
    if (!auth) throw unauthorized();
    return handler(req, { ...ctx, auth });
  });
}

/** 401 unless signed in, 403 unless admin of the active tenant (or the platform super admin). */
export function withTenantAdmin<P = Record<string, never>>(handler: AuthedHandler<P>) {
  return withUser<P>(async (req, ctx) => {
    if (!isTenantAdmin(ctx.auth)) throw forbidden("tenant admins only");
    return handler(req, ctx);
  });
}

/** 401 unless signed in, 403 unless the platform super admin. */
export function withSuperAdmin<P = Record<string, never>>(handler: AuthedHandler<P>) {
  return withUser<P>(async (req, ctx) => {
    if (!ctx.auth.user.isSuperAdmin) throw forbidden("platform super admin only");
    return handler(req, ctx);
  });
}

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
