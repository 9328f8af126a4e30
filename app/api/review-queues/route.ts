import { getDb } from "@/db";
import { reviewQueueInput } from "@/features/reviews/contracts";
import { createQueue, listQueues, reviewerOf } from "@/features/reviews/server";
import { withTenantAdmin, withUser } from "@/lib/auth/guards";
import { actorOf } from "@/lib/changes/changes";
import { readJson } from "@/lib/http/route";

/**
 * The review queues the caller may work, with their counts: every live queue for a tenant admin, the queues open to
 * reviewers for a member with the reviewer right; 403 for anyone else.
 */
export const GET = withUser(async (_req, { auth }) => {
  const who = reviewerOf(auth);
  return Response.json({ queues: await listQueues(await getDb(), who) });
});

/** Creates a queue (tenant admins; logged): 409 naming name when taken, 422 naming scoreNames or datasetId. */
export const POST = withTenantAdmin(async (req, { auth, requestId }) => {
  const who = reviewerOf(auth);
  const input = await readJson(req, reviewQueueInput);
  const queue = await createQueue(await getDb(), who.tenantId, input, actorOf(auth, requestId));
  return Response.json({ queue }, { status: 201 });
});
