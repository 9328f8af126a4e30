import { getDb } from "@/db";
import { queueStats, reviewerOf } from "@/features/reviews/server";
import { withUser } from "@/lib/auth/guards";

/** A queue's progress (open, claimed, done, total), its reviewers' throughput and done items per day (14 days). */
export const GET = withUser<{ id: string }>(async (_req, { auth, params }) => {
  return Response.json(await queueStats(await getDb(), reviewerOf(auth), params.id));
});
