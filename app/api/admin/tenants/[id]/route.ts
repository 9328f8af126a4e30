import { z } from "zod";
import { getDb } from "@/db";
import { actorOf } from "@/lib/admin/changes";
import { updateTenant, updateTenantInput } from "@/lib/admin/tenants";
import { withSuperAdmin } from "@/lib/auth/guards";
import { notFound } from "@/lib/errors";
import { readJson } from "@/lib/http/route";

/** Renames, disables or re-enables a tenant (`{name?, disabled?}`); nothing is deleted. */
export const PATCH = withSuperAdmin<{ id: string }>(async (req, { auth, params, requestId }) => {
  const id = z.uuid().safeParse(params.id);
  if (!id.success) throw notFound("tenant");
  const input = await readJson(req, updateTenantInput);
  return Response.json({
    tenant: await updateTenant(await getDb(), actorOf(auth, requestId), id.data, input),
  });
});
