import { mcpAdminDeps } from "@/features/mcp/server/deps";
import { refreshServer } from "@/features/mcp/server/servers";
import { activeTenantOrThrow, withTenantAdmin } from "@/lib/auth/guards";
import { actorOf } from "@/lib/changes/changes";
import { uuidOr404 } from "@/lib/core/schema/uuid";

/** Lists the server's tools again now; 400 with the reason when it cannot be reached. */
export const POST = withTenantAdmin<{ id: string }>(async (req, { auth, params, requestId }) => {
  const tenant = activeTenantOrThrow(auth);
  return Response.json(
    await refreshServer(
      await mcpAdminDeps(),
      tenant.id,
      uuidOr404(params.id),
      actorOf(auth, requestId),
      req.signal,
    ),
  );
});
