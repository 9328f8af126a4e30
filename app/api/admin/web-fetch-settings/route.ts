import { getDb } from "@/db";
import { webFetchSettingsInput } from "@/features/tenants/contracts";
import { readWebFetchSettings, saveWebFetchSettings } from "@/features/tenants/server/web-fetch";
import { activeTenantOrThrow, withTenantAdmin } from "@/lib/auth/guards";
import { actorOf } from "@/lib/changes/changes";
import { readJson } from "@/lib/http/route";

/** The tenant's web_fetch setting: off, only allow-listed domains (and their subdomains), or any public address. */
export const GET = withTenantAdmin(async (_req, { auth }) => {
  const tenant = activeTenantOrThrow(auth);
  return Response.json(await readWebFetchSettings(await getDb(), tenant.id));
});

export const PUT = withTenantAdmin(async (req, { auth, requestId }) => {
  const tenant = activeTenantOrThrow(auth);
  const input = await readJson(req, webFetchSettingsInput);
  return Response.json(await saveWebFetchSettings(await getDb(), actorOf(auth, requestId), tenant.id, input));
});
