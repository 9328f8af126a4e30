import { getDb } from "@/db";
import { reviewDatasetInput } from "@/features/reviews/contracts";
import { addItemToDataset, reviewerOf } from "@/features/reviews/server";
import { withUser } from "@/lib/auth/guards";
import { readJson } from "@/lib/http/route";

/**
 * Adds the item's turn to an eval dataset (`{datasetId?}`: the queue's when none is named; 422 naming datasetId
 * when neither is; another tenant's dataset is 404). 201 `{datasetItemId, datasetId}`.
 */
export const POST = withUser<{ id: string; itemId: string }>(async (req, { auth, params }) => {
  const who = reviewerOf(auth);
  const { datasetId } = await readJson(req, reviewDatasetInput);
  const added = await addItemToDataset(await getDb(), who, params.id, params.itemId, datasetId);
  return Response.json(added, { status: 201 });
});
