import { getDb } from "@/db";
import { createInvitationInput } from "@/features/members/contracts";
import { createInvitation, invitationLink } from "@/features/members/server/members";
import { activeTenantOrThrow, withTenantAdmin } from "@/lib/auth/guards";
import { actorOf } from "@/lib/changes/changes";
import { readJson } from "@/lib/http/route";

/** Invites someone (`{email, role?, expiresInDays?}`); the answer carries the link, shown this once. */
export const POST = withTenantAdmin(async (req, { auth, requestId }) => {
  const tenant = activeTenantOrThrow(auth);
  const input = await readJson(req, createInvitationInput);
  const { token, invitation } = await createInvitation(
    await getDb(),
    actorOf(auth, requestId),
    tenant.id,
    input,
  );
  return Response.json({ invitation, link: invitationLink(req, token) }, { status: 201 });
});
