import { getDb } from "@/db";
import { actorOf } from "@/lib/admin/changes";
import { createInvitation, createInvitationInput } from "@/lib/admin/members";
import { activeTenantOrThrow, withTenantAdmin } from "@/lib/auth/guards";
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
  return Response.json({ invitation, link: `${publicOrigin(req)}/invite/${token}` }, { status: 201 });
});

/**
 * The address people reach the app at: AUTH_URL when set (production), else the Host the admin's browser used
 * (Next gives route handlers a localhost URL whatever the Host header said).
 */
function publicOrigin(req: Request): string {
  const configured = process.env.AUTH_URL?.replace(/\/+$/, "");
  if (configured) return new URL(configured).origin;
  const host = req.headers.get("x-forwarded-host") ?? req.headers.get("host");
  const proto = req.headers.get("x-forwarded-proto") ?? new URL(req.url).protocol.replace(":", "");
  return host ? `${proto}://${host}` : new URL(req.url).origin;
}
