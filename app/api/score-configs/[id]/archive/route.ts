import { getDb } from "@/db";
import { archiveScoreConfig } from "@/features/scores/server";
import { activeTenantOrThrow, withTenantAdmin } from "@/lib/auth/guards";
import { actorOf } from "@/lib/changes/changes";
import { uuidOr404 } from "@/lib/core/schema/uuid";

/** Archives a config (logged): it validates no new score, and its scores stay. Another tenant's: 404. */
export const POST = withTenantAdmin<{ id: string }>(async (_req, { auth, params, requestId }) => {
  const tenant = activeTenantOrThrow(auth);
  const config = await archiveScoreConfig(
    await getDb(),
    tenant.id,
    uuidOr404(params.id),
    actorOf(auth, requestId),
  );
  return Response.json({ config });
});
