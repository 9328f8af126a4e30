import { getDb } from "@/db";
import { createRunInput } from "@/features/evals/contracts";
import { evalAccess } from "@/features/evals/server/access";
import { createRun, listRuns } from "@/features/evals/server/runs";
import type { NewRun } from "@/features/evals/server/types";
import { withUser } from "@/lib/auth/guards";
import { actorOf } from "@/lib/changes/changes";
import { log } from "@/lib/core/process/log";
import { readJson } from "@/lib/http/route";
import { container } from "@/server/container";

/** The tenant's runs, newest first (`?datasetId=` for one dataset's). */
export const GET = withUser(async (req, { auth }) => {
  const db = await getDb();
  const { tenantId } = evalAccess(auth);
  const datasetId = new URL(req.url).searchParams.get("datasetId") ?? undefined;
  return Response.json({ runs: await listRuns(db, tenantId, datasetId) });
});

/** Starts a run: `{datasetId, targets: [{model, prompt?}], scorers?, concurrency?, name?}` → `{id, total}`. */
export const POST = withUser(async (req, { auth, requestId }) => {
  const input = await readJson(req, createRunInput);
  const db = await getDb();
  const { tenantId } = evalAccess(auth);
  const app = container();
  const created = await createRun(
    db,
    tenantId,
    input as NewRun,
    { userId: auth.user.id, apiKeyId: null, actor: actorOf(auth, requestId) },
    app.gateway,
  );
  // This process's runner starts on it at once (any instance's would within a second).
  void app.evals.tick().catch((error: unknown) => log.error({ err: error }, "evaluation runner failed"));
  return Response.json(created, { status: 201 });
});
