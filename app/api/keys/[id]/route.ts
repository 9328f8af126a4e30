import { getDb } from "@/db";
import { revokeApiKey } from "@/features/keys/server/keys";
import { activeTenantOrThrow, withTenantAdmin } from "@/lib/auth/guards";
import { actorOf } from "@/lib/changes/changes";
import { uuidOr404 } from "@/lib/schema-pages/sql-provider";

/** Revokes the key at once; it answers 401 from then on. Another tenant's key is 404. */
export const DELETE = withTenantAdmin<{ id: string }>(async (_req, { auth, params, requestId }) => {
  const tenant = activeTenantOrThrow(auth);
  return Response.json({
    key: await revokeApiKey(
      await getDb(),
      { tenantId: tenant.id, id: uuidOr404(params.id) },
      actorOf(auth, requestId),
    ),
  });
});
