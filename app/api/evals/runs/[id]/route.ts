import { getDb } from "@/db";
import { evalAccess } from "@/features/evals/server/access";
import { getRun } from "@/features/evals/server/runs";
import { withUser } from "@/lib/auth/guards";

type Params = { id: string };

/** A run: status, progress (with its time left), each target's summary and every item's results. */
export const GET = withUser<Params>(async (req, { auth, params }) => {
  const db = await getDb();
  const { tenantId } = evalAccess(auth);
  const items = new URL(req.url).searchParams.get("items") !== "0";
  return Response.json(await getRun(db, tenantId, params.id, { items }));
});
