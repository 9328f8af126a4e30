import { getDb } from "@/db";
import { alertRulePatch } from "@/features/alerts/contracts";
import { alertOwnerOf, deleteRule, updateRule } from "@/features/alerts/server";
import { withTenantAdmin } from "@/lib/auth/guards";
import { actorOf } from "@/lib/changes/changes";
import { uuidOr404 } from "@/lib/core/schema/uuid";
import { readJson } from "@/lib/http/route";

/** Changes what is sent of a rule (name, params of its kind, channels, enabled); another owner's rule is 404. */
export const PATCH = withTenantAdmin<{ id: string }>(async (req, { auth, params, requestId }) => {
  const owner = alertOwnerOf(req, auth);
  const id = uuidOr404(params.id);
  const patch = await readJson(req, alertRulePatch);
  return Response.json({ rule: await updateRule(await getDb(), owner, id, patch, actorOf(auth, requestId)) });
});

/** Deletes a rule and what it fired. */
export const DELETE = withTenantAdmin<{ id: string }>(async (req, { auth, params, requestId }) => {
  const owner = alertOwnerOf(req, auth);
  await deleteRule(await getDb(), owner, uuidOr404(params.id), actorOf(auth, requestId));
  return new Response(null, { status: 204 });
});
