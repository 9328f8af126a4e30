import { mcpAdminDeps } from "@/features/mcp/server/deps";
import { deleteServer, serverDetail } from "@/features/mcp/server/servers";
import { activeTenantOrThrow, withTenantAdmin } from "@/lib/auth/guards";
import { actorOf } from "@/lib/changes/changes";
import { uuidOr404 } from "@/lib/core/schema/uuid";

/** One server with its tools and their settings; another tenant's id is 404. */
export const GET = withTenantAdmin<{ id: string }>(async (_req, { auth, params }) => {
  const tenant = activeTenantOrThrow(auth);
  return Response.json(await serverDetail(await mcpAdminDeps(), tenant.id, uuidOr404(params.id)));
});

/** Removes the server and its tool settings. */
export const DELETE = withTenantAdmin<{ id: string }>(async (_req, { auth, params, requestId }) => {
  const tenant = activeTenantOrThrow(auth);
  const id = uuidOr404(params.id);
  await deleteServer(await mcpAdminDeps(), tenant.id, id, actorOf(auth, requestId));
  return Response.json({ id, deleted: true });
});
