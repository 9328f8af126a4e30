import { z } from "zod";
import { getDb } from "@/db";
import { activeTenantOrThrow, isTenantAdmin, withUser } from "@/lib/auth/guards";
import { notFound } from "@/lib/core/errors/app-error";
import { getTurnOrThrow } from "@/lib/governance/ledger";

/** A turn's ledger row, for its own user or a tenant admin; anything else answers 404. */
export const GET = withUser<{ id: string }>(async (_req, { auth, params }) => {
  const tenant = activeTenantOrThrow(auth);
  const id = z.uuid().safeParse(params.id);
  if (!id.success) throw notFound("turn");
  const turn = await getTurnOrThrow(await getDb(), { tenantId: tenant.id, turnId: id.data });
  if (turn.userId !== auth.user.id && !isTenantAdmin(auth)) throw notFound("turn");
  return Response.json({ turn });
});
