import { getDb } from "@/db";
import { reviewQueuePatch } from "@/features/reviews/contracts";
import { getQueue, reviewerOf, updateQueue } from "@/features/reviews/server";
import { withTenantAdmin, withUser } from "@/lib/auth/guards";
import { actorOf } from "@/lib/changes/changes";
import { readJson } from "@/lib/http/route";

type Params = { id: string };

/** One queue with its counts: any of the tenant's for an admin, one open to reviewers for a reviewer; else 404. */
export const GET = withUser<Params>(async (_req, { auth, params }) => {
  return Response.json({ queue: await getQueue(await getDb(), reviewerOf(auth), params.id) });
});

/** Changes a queue (tenant admins; logged): each field given replaces what was there; queued items stay. */
export const PATCH = withTenantAdmin<Params>(async (req, { auth, params, requestId }) => {
  const who = reviewerOf(auth);
  const patch = await readJson(req, reviewQueuePatch);
  const queue = await updateQueue(await getDb(), who, params.id, patch, actorOf(auth, requestId));
  return Response.json({ queue });
});
