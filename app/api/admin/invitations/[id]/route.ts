import { z } from "zod";
import { getDb } from "@/db";
import { actorOf } from "@/lib/admin/changes";
import { revokeInvitation } from "@/lib/admin/members";
import { activeTenantOrThrow, withTenantAdmin } from "@/lib/auth/guards";
import { notFound } from "@/lib/errors";

/** Revokes a pending invitation: its link stops working at once. */
export const DELETE = withTenantAdmin<{ id: string }>(async (_req, { auth, params, requestId }) => {
  const tenant = activeTenantOrThrow(auth);
  const id = z.uuid().safeParse(params.id);
  if (!id.success) throw notFound("pending invitation");
  await revokeInvitation(await getDb(), actorOf(auth, requestId), tenant.id, id.data);
  return Response.json({ revoked: true });
});
