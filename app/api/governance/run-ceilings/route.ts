import { getDb } from "@/db";
import { runCeilingInput } from "@/features/limits/contracts";
import { readRunCeilings, saveRunCeilings } from "@/features/limits/server/run-ceilings";
import { activeTenantOrThrow, withTenantAdmin } from "@/lib/auth/guards";
import { actorOf } from "@/lib/changes/changes";
import { readJson } from "@/lib/http/route";

/** The active tenant's run ceilings, and each of its keys' (lib/pipeline/run-ceiling.ts). */
export const GET = withTenantAdmin(async (_req, { auth }) => {
  const tenant = activeTenantOrThrow(auth);
  return Response.json(await readRunCeilings(await getDb(), tenant.id));
});

/**
 * Sets the ceilings of every run of the tenant (`scope: "tenant"`) or of one of its API keys (`scope: "key"` with
 * `subjectId`): `maxUsd`, `maxCalls`, `maxTokens`, `maxSeconds`. Every value empty removes them.
 */
export const PUT = withTenantAdmin(async (req, { auth, requestId }) => {
  const tenant = activeTenantOrThrow(auth);
  const input = await readJson(req, runCeilingInput);
  const ceilings = await saveRunCeilings(await getDb(), tenant.id, input, actorOf(auth, requestId));
  return Response.json({ ceilings });
});
