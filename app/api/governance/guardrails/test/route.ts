import { getDb } from "@/db";
import { guardrailTestInput } from "@/features/guardrails/contracts";
import { engineTester, testGuardrailText } from "@/features/guardrails/server";
import { activeTenantOrThrow, withTenantAdmin } from "@/lib/auth/guards";
import { readJson } from "@/lib/http/route";
import { container } from "@/server/container";

/** What the tenant's saved rules of one stage find in a text, and the text they would let through. */
export const POST = withTenantAdmin(async (req, { auth }) => {
  const tenant = activeTenantOrThrow(auth);
  const input = await readJson(req, guardrailTestInput);
  const tester = engineTester(container().guardrails);
  return Response.json(await testGuardrailText(await getDb(), tenant.id, input, tester));
});
