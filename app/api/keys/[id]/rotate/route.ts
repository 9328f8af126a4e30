import { getDb } from "@/db";
import { rotateKeyInput } from "@/features/keys/contracts";
import { rotateApiKey } from "@/features/keys/server/rotate";
import { activeTenantOrThrow, withTenantAdmin } from "@/lib/auth/guards";
import { actorOf } from "@/lib/changes/changes";
import { uuidOr404 } from "@/lib/core/schema/uuid";
import { readJson } from "@/lib/http/route";

/**
 * Rotates the key: its successor (same tools, limits and guardrail scopes) is answered with its secret, shown this
 * once; the old key keeps working `overlapHours` (default 24) and then answers 401 key_expired. A key rotated
 * already is 409; another tenant's key is 404.
 */
export const POST = withTenantAdmin<{ id: string }>(async (req, { auth, params, requestId }) => {
  const tenant = activeTenantOrThrow(auth);
  const id = uuidOr404(params.id);
  const { overlapHours } = await readJson(req, rotateKeyInput);
  const rotated = await rotateApiKey(
    await getDb(),
    { tenantId: tenant.id, id, overlapHours, createdBy: auth.user.id },
    actorOf(auth, requestId),
  );
  return Response.json(rotated, { status: 201 });
});
