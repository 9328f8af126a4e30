import { getDb } from "@/db";
import { createKeyInput, expiryOf } from "@/features/keys/contracts";
import { createApiKey, listApiKeys } from "@/features/keys/server/keys";
import { activeTenantOrThrow, withTenantAdmin } from "@/lib/auth/guards";
import { actorOf } from "@/lib/changes/changes";
import { readJson } from "@/lib/http/route";

/** The active tenant's API keys (never their secrets). */
export const GET = withTenantAdmin(async (_req, { auth }) => {
  const tenant = activeTenantOrThrow(auth);
  return Response.json({ keys: await listApiKeys(await getDb(), tenant.id) });
});

/** Creates a key, with an optional expiry; the response carries the secret, shown this once. */
export const POST = withTenantAdmin(async (req, { auth, requestId }) => {
  const tenant = activeTenantOrThrow(auth);
  const input = await readJson(req, createKeyInput);
  const { name, allowedTools } = input;
  const created = await createApiKey(
    await getDb(),
    { tenantId: tenant.id, name, createdBy: auth.user.id, allowedTools, expiresAt: expiryOf(input) },
    actorOf(auth, requestId),
  );
  return Response.json(created, { status: 201 });
});
