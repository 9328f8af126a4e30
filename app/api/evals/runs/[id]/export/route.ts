import { getDb } from "@/db";
import { evalAccess } from "@/features/evals/server/access";
import { runCsv } from "@/features/evals/server/run-export";
import { withUser } from "@/lib/auth/guards";

type Params = { id: string };

/** The run's items as CSV (one line per item and target, exact costs). */
export const GET = withUser<Params>(async (_req, { auth, params }) => {
  const db = await getDb();
  const { tenantId } = evalAccess(auth);
  const csv = await runCsv(db, tenantId, params.id);
  return new Response(csv, {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="eval-run-${params.id}.csv"`,
    },
  });
});
