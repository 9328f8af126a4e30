import { getDb } from "@/db";
import { signInSettingsInput } from "@/features/tenants/contracts";
import { readSignInSettings, saveSignInSettings } from "@/features/tenants/server/tenants";
import { activeTenantOrThrow, withTenantAdmin } from "@/lib/auth/guards";
import { ssoProviderName } from "@/lib/auth/sso";
import { actorOf } from "@/lib/changes/changes";
import { readJson } from "@/lib/http/route";

/** The tenant's sign-in settings: the email domains that may join through single sign-on. */
export const GET = withTenantAdmin(async (_req, { auth }) => {
  const tenant = activeTenantOrThrow(auth);
  return Response.json({ ...(await readSignInSettings(await getDb(), tenant.id)), sso: ssoProviderName() });
});

export const PUT = withTenantAdmin(async (req, { auth, requestId }) => {
  const tenant = activeTenantOrThrow(auth);
  const input = await readJson(req, signInSettingsInput);
  const saved = await saveSignInSettings(await getDb(), actorOf(auth, requestId), tenant.id, input);
  return Response.json({ ...saved, sso: ssoProviderName() });
});
