import { z } from "zod";
import { getDb } from "@/db";
import { hasNoNul, NO_NUL } from "@/db/sql-text";
import { activeTenantOrThrow, withTenantAdmin } from "@/lib/auth/guards";
import { actorOf } from "@/lib/changes/changes";
import { readJson } from "@/lib/http/route";
import { createApiKey, listApiKeys } from "@/lib/keys/api-keys";

/** The active tenant's API keys (never their secrets). */
export const GET = withTenantAdmin(async (_req, { auth }) => {
  const tenant = activeTenantOrThrow(auth);
  return Response.json({ keys: await listApiKeys(await getDb(), tenant.id) });
});

const body = z.object({
  name: z
    .string()
    .trim()
    .min(1, "name the key, e.g. after the app that uses it")
    .max(100)
    .refine(hasNoNul, NO_NUL),
});

/** Creates a key; the response carries the secret, shown this once. */
export const POST = withTenantAdmin(async (req, { auth, requestId }) => {
  const tenant = activeTenantOrThrow(auth);
  const { name } = await readJson(req, body);
  const created = await createApiKey(
    await getDb(),
    { tenantId: tenant.id, name, createdBy: auth.user.id },
    actorOf(auth, requestId),
  );
  return Response.json(created, { status: 201 });
});
