import { getDb } from "@/db";
import { reviewItemsQuery } from "@/features/reviews/contracts";
import { queueItems, reviewerOf } from "@/features/reviews/server";
import { withTenantAdmin } from "@/lib/auth/guards";

/** A queue's items a page at a time (tenant admins): `?status=open|done&limit=&cursor=` (keyset, at most 100). */
export const GET = withTenantAdmin<{ id: string }>(async (req, { auth, params }) => {
  const query = reviewItemsQuery.parse(Object.fromEntries(new URL(req.url).searchParams));
  return Response.json(await queueItems(await getDb(), reviewerOf(auth), params.id, query));
});
