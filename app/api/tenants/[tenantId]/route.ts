import { getTenantSummary } from "@/features/tenants/server/summary";
import { tenantAccessOrThrow, withUser } from "@/lib/auth/guards";

/** A tenant the user belongs to; any other tenant id answers 404. */
export const GET = withUser<{ tenantId: string }>(async (_req, { auth, params }) => {
  const access = tenantAccessOrThrow(auth, params.tenantId);
  return Response.json({ ...(await getTenantSummary(access.id)), role: access.role });
});
