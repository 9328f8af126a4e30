import { getDb } from "@/db";
import { guardrailPolicyInput } from "@/features/guardrails/contracts";
import { guardrailPolicyView, saveGuardrailPolicy } from "@/features/guardrails/server";
import { activeTenantOrThrow, withTenantAdmin } from "@/lib/auth/guards";
import { actorOf } from "@/lib/changes/changes";
import { readJson } from "@/lib/http/route";

/** The active tenant's guardrail rules, in the order they apply; webhook secrets answered as `secretSet` only. */
export const GET = withTenantAdmin(async (_req, { auth }) => {
  const tenant = activeTenantOrThrow(auth);
  return Response.json(await guardrailPolicyView(await getDb(), tenant.id));
});

/** Replaces the tenant's whole policy; a webhook rule sent without `secret` keeps the one it has. */
export const PUT = withTenantAdmin(async (req, { auth, requestId }) => {
  const tenant = activeTenantOrThrow(auth);
  const input = await readJson(req, guardrailPolicyInput);
  return Response.json(await saveGuardrailPolicy(await getDb(), tenant.id, input, actorOf(auth, requestId)));
});
