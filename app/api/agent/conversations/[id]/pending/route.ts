import { z } from "zod";
import { getDb } from "@/db";
import { activeTenantOrThrow, withUser } from "@/lib/auth/guards";
import { notFound } from "@/lib/core/errors/app-error";
import { getConversationOrThrow, pendingForConversation } from "@/lib/governance/conversations";

type Params = { id: string };

/**
 * What waits for the next turn of one of the user's conversations: the notices queued for it (a background
 * task's result, stacked by type) and how many of its background tasks are still going. The drawer polls it
 * while tasks run, so a result shows the moment it arrives; anyone else's id answers 404.
 */
export const GET = withUser<Params>(async (_req, { auth, params }) => {
  const parsed = z.uuid().safeParse(params.id);
  if (!parsed.success) throw notFound("conversation");
  const tenant = activeTenantOrThrow(auth);
  const db = await getDb();
  const conversation = await getConversationOrThrow(db, {
    tenantId: tenant.id,
    userId: auth.user.id,
    id: parsed.data,
  });
  const pending = await pendingForConversation(db, tenant.id, conversation.id);
  return Response.json(pending, { headers: { "cache-control": "no-store" } });
});
