import { getDb } from "@/db";
import { archiveQueue, reviewerOf } from "@/features/reviews/server";
import { withTenantAdmin } from "@/lib/auth/guards";
import { actorOf } from "@/lib/changes/changes";

/** Archives a queue (tenant admins; logged): it fills no more and leaves the lists; its items and scores stay. */
export const POST = withTenantAdmin<{ id: string }>(async (_req, { auth, params, requestId }) => {
  const queue = await archiveQueue(await getDb(), reviewerOf(auth), params.id, actorOf(auth, requestId));
  return Response.json({ queue });
});
