import { getDb } from "@/db";
import { updateKeyInput } from "@/features/keys/contracts";
import { revokeApiKey, updateApiKey } from "@/features/keys/server/keys";
import { activeTenantOrThrow, withTenantAdmin } from "@/lib/auth/guards";
import { actorOf } from "@/lib/changes/changes";
import { uuidOr404 } from "@/lib/core/schema/uuid";
import { readJson } from "@/lib/http/route";

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

/**
 * Sets the tools the key may call over /mcp (`allowedTools`: names, or null for all) and/or its expiry
 * (`expiresAt`: a future instant, or null for never); seen by the next call.
 */
export const PATCH = withTenantAdmin<{ id: string }>(async (req, { auth, params, requestId }) => {
  const tenant = activeTenantOrThrow(auth);
  const id = uuidOr404(params.id);
  const { allowedTools, expiresAt } = await readJson(req, updateKeyInput);
  return Response.json({
    key: await updateApiKey(
      await getDb(),
      {
        tenantId: tenant.id,
        id,
        allowedTools,
        expiresAt: typeof expiresAt === "string" ? new Date(expiresAt) : expiresAt,
      },
      actorOf(auth, requestId),
    ),
  });
});
