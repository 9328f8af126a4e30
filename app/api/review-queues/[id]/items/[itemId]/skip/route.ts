import { getDb } from "@/db";
import { reviewerOf, skipItem } from "@/features/reviews/server";
import { withUser } from "@/lib/auth/guards";

/** Lets the caller's claimed item go to another reviewer; it is not offered to the caller again. 409 as for done. */
export const POST = withUser<{ id: string; itemId: string }>(async (_req, { auth, params }) => {
  return Response.json(await skipItem(await getDb(), reviewerOf(auth), params.id, params.itemId));
});
