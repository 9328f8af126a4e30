import { getDb } from "@/db";
import { signInSettingsInput } from "@/features/tenants/contracts";
import { readSignInSettings, saveSignInSettings } from "@/features/tenants/server/tenants";
import { activeTenantOrThrow, withTenantAdmin } from "@/lib/auth/guards";
import { ssoProviderName } from "@/lib/auth/sso";
import { actorOf } from "@/lib/changes/changes";
import { forbidden } from "@/lib/core/errors/app-error";
import { readJson } from "@/lib/http/route";

/**
 * The tenant's sign-in settings: the email domains that may join through single sign-on. Tenant admins read
 * them; only the platform super admin grants them (`canEdit`).
 */
export const GET = withTenantAdmin(async (_req, { auth }) => {
  const tenant = activeTenantOrThrow(auth);
  return Response.json({
    ...(await readSignInSettings(await getDb(), tenant.id)),
    sso: ssoProviderName(),
    canEdit: auth.user.isSuperAdmin,
  });
});

export const PUT = withTenantAdmin(async (req, { auth, requestId }) => {
  // A domain's tenant receives everyone who signs in with it, so no tenant may claim one for itself.
  if (!auth.user.isSuperAdmin)
    throw forbidden(
      "email domains for single sign-on are granted by the platform admin (super admin); ask them to add or remove one",
    );
  const tenant = activeTenantOrThrow(auth);
  const input = await readJson(req, signInSettingsInput);
  const saved = await saveSignInSettings(await getDb(), actorOf(auth, requestId), tenant.id, input);
  return Response.json({ ...saved, sso: ssoProviderName(), canEdit: true });
});
