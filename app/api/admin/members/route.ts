import { getDb } from "@/db";
import { listInvitations, listMembers } from "@/features/members/server/members";
import { activeTenantOrThrow, withTenantAdmin } from "@/lib/auth/guards";

/** The active tenant's members and pending invitations. */
export const GET = withTenantAdmin(async (_req, { auth }) => {
  const tenant = activeTenantOrThrow(auth);
  const db = await getDb();
  return Response.json({
    members: await listMembers(db, tenant.id),
    invitations: await listInvitations(db, tenant.id),
  });
});
