import { updateToolInput } from "@/features/mcp/contracts";
import { mcpAdminDeps } from "@/features/mcp/server/deps";
import { updateToolSetting } from "@/features/mcp/server/servers";
import { activeTenantOrThrow, withTenantAdmin } from "@/lib/auth/guards";
import { actorOf } from "@/lib/changes/changes";
import { uuidOr404 } from "@/lib/core/schema/uuid";
import { readJson } from "@/lib/http/route";

/** Changes one tool's settings: enabled, the roles that may call it, whether it needs the user's confirmation. */
export const PUT = withTenantAdmin<{ id: string; tool: string }>(async (req, { auth, params, requestId }) => {
  const tenant = activeTenantOrThrow(auth);
  const patch = await readJson(req, updateToolInput);
  const tool = await updateToolSetting(
    await mcpAdminDeps(),
    tenant.id,
    uuidOr404(params.id),
    params.tool,
    patch,
    actorOf(auth, requestId),
  );
  return Response.json({ tool });
});
