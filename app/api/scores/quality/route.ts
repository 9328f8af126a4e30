import { getDb } from "@/db";
import { qualityQuery } from "@/features/scores/contracts";
import { modelQuality } from "@/features/scores/server";
import { activeTenantOrThrow, withTenantAdmin } from "@/lib/auth/guards";

/** The active tenant's models over the last `days` days: calls and cost next to their feedback and scores. */
export const GET = withTenantAdmin(async (req, { auth }) => {
  const tenant = activeTenantOrThrow(auth);
  const query = qualityQuery.parse(Object.fromEntries(new URL(req.url).searchParams));
  return Response.json({
    days: query.days,
    models: await modelQuality(await getDb(), tenant.id, query.days),
  });
});
