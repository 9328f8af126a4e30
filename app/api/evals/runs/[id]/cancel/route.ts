import { getDb } from "@/db";
import { evalAccess } from "@/features/evals/server/access";
import { cancelRun, getRun } from "@/features/evals/server/runs";
import { withUser } from "@/lib/auth/guards";
import { actorOf } from "@/lib/changes/changes";

type Params = { id: string };

/** Cancels a run: nothing more is claimed, pending items are cancelled, finished ones kept. */
export const POST = withUser<Params>(async (_req, { auth, params, requestId }) => {
  const db = await getDb();
  const { tenantId } = evalAccess(auth);
  const cancelled = await cancelRun(db, tenantId, params.id, actorOf(auth, requestId));
  const run = await getRun(db, tenantId, params.id, { items: false });
  return Response.json({ cancelled, status: run.status });
});
