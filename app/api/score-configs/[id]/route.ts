import { getDb } from "@/db";
import { scoreConfigPatch } from "@/features/scores/contracts";
import { updateScoreConfig } from "@/features/scores/server";
import { activeTenantOrThrow, withTenantAdmin } from "@/lib/auth/guards";
import { actorOf } from "@/lib/changes/changes";
import { uuidOr404 } from "@/lib/core/schema/uuid";
import { readJson } from "@/lib/http/route";

/** Changes a config's description, range or categories (logged); its name and type stay. Another tenant's: 404. */
export const PATCH = withTenantAdmin<{ id: string }>(async (req, { auth, params, requestId }) => {
  const tenant = activeTenantOrThrow(auth);
  const id = uuidOr404(params.id);
  const patch = await readJson(req, scoreConfigPatch);
  const config = await updateScoreConfig(await getDb(), tenant.id, id, patch, actorOf(auth, requestId));
  return Response.json({ config });
});
