import { getDb } from "@/db";
import { createTenantInput } from "@/features/tenants/contracts";
import { createTenant, listTenants } from "@/features/tenants/server/tenants";
import { withSuperAdmin } from "@/lib/auth/guards";
import { actorOf } from "@/lib/changes/changes";
import { readJson } from "@/lib/http/route";

/** Every tenant with its member count, last activity and spend this month. */
export const GET = withSuperAdmin(async () => Response.json({ tenants: await listTenants(await getDb()) }));

/** Creates a tenant (`{name, slug?}`); the slug is made from the name when not given. */
export const POST = withSuperAdmin(async (req, { auth, requestId }) => {
  const input = await readJson(req, createTenantInput);
  const created = await createTenant(await getDb(), actorOf(auth, requestId), input);
  return Response.json({ tenant: created }, { status: 201 });
});
