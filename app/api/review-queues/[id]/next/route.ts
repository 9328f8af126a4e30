import { getDb } from "@/db";
import { nextItem, reviewerOf } from "@/features/reviews/server";
import { withUser } from "@/lib/auth/guards";

/**
 * The caller's next item to review: the one they hold under a live lease, else the oldest free one they have not
 * skipped, claimed for the queue's lease; `{item: null}` when none is free. `open`: the queue's open items.
 */
export const POST = withUser<{ id: string }>(async (_req, { auth, params }) => {
  return Response.json(await nextItem(await getDb(), reviewerOf(auth), params.id));
});
