import { getDb } from "@/db";
import { fillQueue, queueFor, reviewerOf } from "@/features/reviews/server";
import { withTenantAdmin } from "@/lib/auth/guards";

/** Fills a queue now (tenant admins): the turns its rules match since its last fill become items. `{added}`. */
export const POST = withTenantAdmin<{ id: string }>(async (_req, { auth, params }) => {
  const db = await getDb();
  const queue = await queueFor(db, reviewerOf(auth), params.id);
  const { added } = await fillQueue(db, queue);
  return Response.json({ added });
});
