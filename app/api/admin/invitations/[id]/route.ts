import { z } from "zod";
import { getDb } from "@/db";
import { revokeInvitation } from "@/features/members/server/members";
import { activeTenantOrThrow, withTenantAdmin } from "@/lib/auth/guards";
import { actorOf } from "@/lib/changes/changes";
import { notFound } from "@/lib/core/errors/app-error";

/** Revokes a pending invitation: its link stops working at once. */
export const DELETE = withTenantAdmin<{ id: string }>(async (_req, { auth, params, requestId }) => {
  const tenant = activeTenantOrThrow(auth);
  const id = z.uuid().safeParse(params.id);
  if (!id.success) throw notFound("pending invitation");
  await revokeInvitation(await getDb(), actorOf(auth, requestId), tenant.id, id.data);
  return Response.json({ revoked: true });
});
