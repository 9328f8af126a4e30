import { testCallInput } from "@/features/mcp/contracts";
import { mcpAdminDeps } from "@/features/mcp/server/deps";
import { testCallTool } from "@/features/mcp/server/servers";
import { activeTenantOrThrow, withTenantAdmin } from "@/lib/auth/guards";
import { actorOf } from "@/lib/changes/changes";
import { uuidOr404 } from "@/lib/core/schema/uuid";
import { readJson } from "@/lib/http/route";

/**
 * The admin's test call: runs the tool as the loop would and answers what the model would read (`ok: false` with
 * the error otherwise); recorded in the admin-change log with the arguments and result, masked.
 */
export const POST = withTenantAdmin<{ id: string; tool: string }>(
  async (req, { auth, params, requestId }) => {
    const tenant = activeTenantOrThrow(auth);
    const input = await readJson(req, testCallInput);
    const result = await testCallTool(
      await mcpAdminDeps(),
      { tenantId: tenant.id, userId: auth.user.id, role: "admin" },
      uuidOr404(params.id),
      params.tool,
      input.arguments,
      actorOf(auth, requestId),
      req.signal,
    );
    return Response.json(result);
  },
);
