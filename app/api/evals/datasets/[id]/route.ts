import { getDb } from "@/db";
import { evalAccess } from "@/features/evals/server/access";
import { archiveDataset, getDataset } from "@/features/evals/server/datasets";
import { withUser } from "@/lib/auth/guards";
import { actorOf } from "@/lib/changes/changes";

type Params = { id: string };

/** A dataset with its items and runs. */
export const GET = withUser<Params>(async (_req, { auth, params }) => {
  const db = await getDb();
  const { tenantId } = evalAccess(auth);
  return Response.json({ dataset: await getDataset(db, tenantId, params.id) });
});

/** Archives a dataset (its runs stay readable; it takes no new items or runs). */
export const DELETE = withUser<Params>(async (_req, { auth, params, requestId }) => {
  const db = await getDb();
  const { tenantId } = evalAccess(auth);
  return Response.json(await archiveDataset(db, tenantId, params.id, actorOf(auth, requestId)));
});
