import { headers } from "next/headers";
import { forbidden, redirect } from "next/navigation";
import { currentUser, isTenantAdmin, type UserContext } from "./guards";

/** For pages: the signed-in user, or a redirect to /login that comes back to this page. */
export async function requireUser(): Promise<UserContext> {
  const auth = await currentUser();
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
