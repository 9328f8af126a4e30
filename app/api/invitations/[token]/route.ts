import { getDb } from "@/db";
import { lookupInvitation } from "@/features/members/server/members";
import { route } from "@/lib/http/route";

/** What an invitation link offers (tenant, email, role); 404 unknown, 410 used, revoked or expired. */
export const GET = route<{ token: string }>(async (_req, { params }) =>
  Response.json({ invitation: await lookupInvitation(await getDb(), params.token) }),
);
