import { getDb } from "@/db";
import { createDatasetInput } from "@/features/evals/contracts";
import { evalAccess } from "@/features/evals/server/access";
import { createDataset, listDatasets } from "@/features/evals/server/datasets";
import type { NewDataset } from "@/features/evals/server/types";
import { withUser } from "@/lib/auth/guards";
import { actorOf } from "@/lib/changes/changes";
import { readJson } from "@/lib/http/route";

/** The tenant's evaluation datasets (tenant admins and prompt editors). */
export const GET = withUser(async (_req, { auth }) => {
  const db = await getDb();
  const { tenantId } = evalAccess(auth);
  return Response.json({ datasets: await listDatasets(db, tenantId) });
});

/** Creates a dataset: `{name, description?, items: [{input, expected?, metadata?}], scorers?}` → `{id}`. */
export const POST = withUser(async (req, { auth, requestId }) => {
  const input = await readJson(req, createDatasetInput);
  const db = await getDb();
  const { tenantId } = evalAccess(auth);
  const created = await createDataset(db, tenantId, input as NewDataset, actorOf(auth, requestId));
  return Response.json(created, { status: 201 });
});
