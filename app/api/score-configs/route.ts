import { getDb } from "@/db";
import { scoreConfigInput } from "@/features/scores/contracts";
import { createScoreConfig, listScoreConfigs } from "@/features/scores/server";
import { activeTenantOrThrow, withTenantAdmin } from "@/lib/auth/guards";
import { actorOf } from "@/lib/changes/changes";
import { readJson } from "@/lib/http/route";

/** The active tenant's score configs, live first, by name. */
export const GET = withTenantAdmin(async (_req, { auth }) => {
  const tenant = activeTenantOrThrow(auth);
  return Response.json({ configs: await listScoreConfigs(await getDb(), tenant.id) });
});

/** Creates a score config (logged): its name and type, a numeric range or categories; 409 for a name in use. */
export const POST = withTenantAdmin(async (req, { auth, requestId }) => {
  const tenant = activeTenantOrThrow(auth);
  const input = await readJson(req, scoreConfigInput);
  const config = await createScoreConfig(await getDb(), tenant.id, input, actorOf(auth, requestId));
  return Response.json({ config }, { status: 201 });
});
