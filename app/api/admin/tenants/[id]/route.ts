import { z } from "zod";
import { getDb } from "@/db";
import { updateTenantInput } from "@/features/tenants/contracts";
import { updateTenant } from "@/features/tenants/server/tenants";
import { withSuperAdmin } from "@/lib/auth/guards";
import { actorOf } from "@/lib/changes/changes";
import { notFound } from "@/lib/core/errors/app-error";
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
