import { getDb } from "@/db";
import { reviewDoneInput } from "@/features/reviews/contracts";
import { completeItem, reviewerOf } from "@/features/reviews/server";
import { withUser } from "@/lib/auth/guards";
import { readJson } from "@/lib/http/route";

/**
 * Closes the caller's claimed item with their scores (human scores on its turn, validated by the tenant's score
 * configs: 422 naming `scores.N.value`). 409 `review_lease_lost` when the caller no longer holds it,
 * `review_item_done` when it is already reviewed.
 */
export const POST = withUser<{ id: string; itemId: string }>(async (req, { auth, params }) => {
  const who = reviewerOf(auth);
  const input = await readJson(req, reviewDoneInput);
  return Response.json(await completeItem(await getDb(), who, params.id, params.itemId, input));
});
