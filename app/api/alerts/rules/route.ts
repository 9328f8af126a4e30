import { getDb } from "@/db";
import { alertRuleInput } from "@/features/alerts/contracts";
import { alertOwnerOf, createRule, listRules } from "@/features/alerts/server";
import { withTenantAdmin } from "@/lib/auth/guards";
import { actorOf } from "@/lib/changes/changes";
import { readJson } from "@/lib/http/route";

/** The alert rules of the active tenant (or, `?scope=platform`, the platform's), each with when it last fired. */
export const GET = withTenantAdmin(async (req, { auth }) => {
  const owner = alertOwnerOf(req, auth);
  return Response.json({ rules: await listRules(await getDb(), owner) });
});

/** Creates a rule; its params are checked against its kind, its channels must be the same owner's (else 422). */
export const POST = withTenantAdmin(async (req, { auth, requestId }) => {
  const owner = alertOwnerOf(req, auth);
  const input = await readJson(req, alertRuleInput);
  const rule = await createRule(await getDb(), owner, input, actorOf(auth, requestId));
  return Response.json({ rule }, { status: 201 });
});
