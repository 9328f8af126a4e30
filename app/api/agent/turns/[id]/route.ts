import { z } from "zod";
import { getDb } from "@/db";
import { ownFeedback } from "@/features/drawer/server/feedback";
import { activeTenantOrThrow, isTenantAdmin, withUser } from "@/lib/auth/guards";
import { notFound } from "@/lib/core/errors/app-error";
import { getTurnOrThrow } from "@/lib/governance/ledger";

/**
 * A turn's ledger row, for its own user or a tenant admin; anything else answers 404. Beside it, the signed-in
 * user's own vote on the answer (the drawer shows it pressed), null when they have none.
 */
export const GET = withUser<{ id: string }>(async (_req, { auth, params }) => {
  const tenant = activeTenantOrThrow(auth);
  const id = z.uuid().safeParse(params.id);
  if (!id.success) throw notFound("turn");
  const db = await getDb();
  const turn = await getTurnOrThrow(db, { tenantId: tenant.id, turnId: id.data });
  if (turn.userId !== auth.user.id && !isTenantAdmin(auth)) throw notFound("turn");
  const mine = turn.userId === auth.user.id;
  const feedback = mine
    ? await ownFeedback(db, { tenantId: tenant.id, userId: auth.user.id }, turn.id)
    : null;
  return Response.json({ turn, feedback });
});
