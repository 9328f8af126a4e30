import { headers } from "next/headers";
import { forbidden, redirect } from "next/navigation";
import { dependencyFailure } from "@/lib/core/errors/dependency";
import { currentUser, isTenantAdmin, type UserContext } from "./guards";

/** For pages: the signed-in user, or a redirect to /login that comes back to this page. */
export async function requireUser(): Promise<UserContext> {
  let auth: UserContext | null;
  try {
    auth = await currentUser();
  } catch (error) {
    // The database is away: the 503 page (app/unavailable), which leads back here, rather than Next's 500 page.
    if (!dependencyFailure(error)) throw error;
    const path = (await headers()).get("x-pathname") ?? "/";
    redirect(`/unavailable?from=${encodeURIComponent(path)}`);
  }
  if (!auth) {
    const path = (await headers()).get("x-pathname") ?? "/";
    redirect(`/login?callbackUrl=${encodeURIComponent(path)}`);
  }
  return auth;
}

/** For pages: a tenant admin or the super admin; anyone else gets the 403 page. */
export async function requireTenantAdmin(): Promise<UserContext> {
  const auth = await requireUser();
  if (!isTenantAdmin(auth)) forbidden();
  return auth;
}

/** For pages of prompts' editing and evaluation: tenant admins, the super admin and prompt editors. */
export async function requirePromptEditor(): Promise<UserContext> {
  const auth = await requireUser();
  if (!isTenantAdmin(auth) && !auth.tenant?.promptEditor) forbidden();
  return auth;
}

export async function requireSuperAdmin(): Promise<UserContext> {
  const auth = await requireUser();
  if (!auth.user.isSuperAdmin) forbidden();
  return auth;
}
