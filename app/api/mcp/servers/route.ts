import { createServerInput } from "@/features/mcp/contracts";
import { mcpAdminDeps } from "@/features/mcp/server/deps";
import { listServers, registerServer } from "@/features/mcp/server/servers";
import { activeTenantOrThrow, withTenantAdmin } from "@/lib/auth/guards";
import { actorOf } from "@/lib/changes/changes";
import { readJson } from "@/lib/http/route";

/** The active tenant's MCP servers with their status (header names only, never values). */
export const GET = withTenantAdmin(async (_req, { auth }) => {
  const tenant = activeTenantOrThrow(auth);
  return Response.json({ servers: await listServers(await mcpAdminDeps(), tenant.id) });
});

/** Registers a server once it answered and listed its tools; 400 naming `url` when it cannot be used. */
export const POST = withTenantAdmin(async (req, { auth, requestId }) => {
  const tenant = activeTenantOrThrow(auth);
  const input = await readJson(req, createServerInput);
  const server = await registerServer(
    await mcpAdminDeps(),
    tenant.id,
    input,
    actorOf(auth, requestId),
    req.signal,
  );
  return Response.json(server, { status: 201 });
});
