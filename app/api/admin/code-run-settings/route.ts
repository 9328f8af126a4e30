import { getDb } from "@/db";
import { codeRunSettingsInput } from "@/features/tenants/contracts";
import { readCodeRunSettings, saveCodeRunSettings } from "@/features/tenants/server/code-run";
import { activeTenantOrThrow, withTenantAdmin } from "@/lib/auth/guards";
import { actorOf } from "@/lib/changes/changes";
import { readJson } from "@/lib/http/route";

/** The tenant's code_run setting: off (the default), on without files, or on with the conversation's files. */
export const GET = withTenantAdmin(async (_req, { auth }) => {
  const tenant = activeTenantOrThrow(auth);
  return Response.json(await readCodeRunSettings(await getDb(), tenant.id));
});

export const PUT = withTenantAdmin(async (req, { auth, requestId }) => {
  const tenant = activeTenantOrThrow(auth);
  const input = await readJson(req, codeRunSettingsInput);
  return Response.json(await saveCodeRunSettings(await getDb(), actorOf(auth, requestId), tenant.id, input));
});
