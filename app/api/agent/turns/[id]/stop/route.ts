import { activeTenantOrThrow, withUser } from "@/lib/auth/guards";
import { container } from "@/server/container";

/**
 * Stops the user's own running turn, on whichever instance runs it. 202 when it was stopped (here, or by the
 * instance running it, which answers within about a second); 409 when it is not running anywhere.
 */
export const POST = withUser<{ id: string }>(async (_req, { auth, params }) => {
  const tenant = activeTenantOrThrow(auth);
  const stopped = await container().agent.turns.stop(params.id, {
    tenantId: tenant.id,
    userId: auth.user.id,
  });
  return Response.json({ stopped }, { status: stopped ? 202 : 409 });
});
