import "server-only";
import { cache } from "react";
import { getDb } from "@/db";
import { forbidden, unauthorized } from "@/lib/core/errors/app-error";
import { type RouteContext, route } from "@/lib/http/route";
import { isTenantAdmin } from "./access";
import { readSessionClaims } from "./session";
import { loadUserContext, type UserContext } from "./users";

export { activeTenantOrThrow, isTenantAdmin, tenantAccessOrThrow } from "./access";
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
