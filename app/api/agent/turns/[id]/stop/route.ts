import { stopRunningTurn } from "@/lib/agent/stop-registry";
import { activeTenantOrThrow, withUser } from "@/lib/auth/guards";

/** Stops the user's own running turn. 202 when stopped here; 409 when it is not running in this instance. */
export const POST = withUser<{ id: string }>(async (_req, { auth, params }) => {
  const tenant = activeTenantOrThrow(auth);
  const stopped = stopRunningTurn(params.id, { tenantId: tenant.id, userId: auth.user.id });
  return Response.json({ stopped }, { status: stopped ? 202 : 409 });
});
