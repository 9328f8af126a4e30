import { switchTenantInput } from "@/features/tenants/contracts";
import { unstable_update } from "@/lib/auth";
import { tenantAccessOrThrow, withUser } from "@/lib/auth/guards";
import { forbidden } from "@/lib/core/errors/app-error";
import { readJson } from "@/lib/http/route";

/** Switches the active tenant. null (the whole platform) is for the super admin only. */
export const POST = withUser(async (req, { auth }) => {
  const { tenantId } = await readJson(req, switchTenantInput);
  if (tenantId === null && !auth.user.isSuperAdmin) throw forbidden("choose one of your tenants");
  const target = tenantId === null ? null : tenantAccessOrThrow(auth, tenantId);
  await unstable_update({ tenantId } as never);
  return Response.json({ tenant: target, role: target?.role ?? null });
});
