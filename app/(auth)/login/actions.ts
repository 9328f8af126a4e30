"use server";

import { redirect } from "next/navigation";
import { AuthError } from "next-auth";
import { signIn } from "@/lib/auth";
import { safeCallbackPath } from "@/lib/auth/sign-in";
import { SSO_PROVIDER_ID, ssoProviderName } from "@/lib/auth/sso";

/** Starts single sign-on: next-auth sets its PKCE and state cookies and sends the browser to the provider. */
export async function signInWithSso(form: FormData): Promise<void> {
  if (!ssoProviderName()) redirect("/login");
  const callbackUrl = form.get("callbackUrl");
  const redirectTo = safeCallbackPath(typeof callbackUrl === "string" ? callbackUrl : undefined);
  try {
    await signIn(SSO_PROVIDER_ID, { redirectTo });
  } catch (error) {
    // e.g. the provider's discovery document is unreachable: back to the login page, which explains it.
    if (error instanceof AuthError) redirect(`/login?error=${encodeURIComponent(error.type)}`);
    throw error;
  }
}
