import { getDb } from "@/db";
import { limitsInput } from "@/features/limits/contracts";
import { saveLimits } from "@/features/limits/server/settings";
import { activeTenantOrThrow, withTenantAdmin } from "@/lib/auth/guards";
import { actorOf } from "@/lib/changes/changes";
import { readJson } from "@/lib/http/route";
import { container } from "@/server/container";

/**
 * Sets the rate limits and budgets of the tenant (`scope: "tenant"`), of one of its API keys or of one of its
 * users (`scope: "key" | "user"` with `subjectId`); or the template each end user of a key's calls is held to
 * (`scope: "end_user"` with the key's id as `subjectId`), or of the tenant's (`scope: "end_user"` alone). Every
 * value empty removes them.
 */
export const PUT = withTenantAdmin(async (req, { auth, requestId }) => {
  const tenant = activeTenantOrThrow(auth);
  const input = await readJson(req, limitsInput);
  const limits = await saveLimits(
    await getDb(),
    container().stores.counters,
    tenant.id,
    input,
    auth.user.id,
    actorOf(auth, requestId),
  );
  return Response.json({ limits });
});
