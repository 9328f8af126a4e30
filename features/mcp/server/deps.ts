import "server-only";
import { getDb } from "@/db";
import { container } from "@/server/container";
import type { McpAdminDeps } from "./servers";

/** What the MCP routes work with: the database, the process's MCP client side, the built-in tool sets' names. */
export async function mcpAdminDeps(): Promise<McpAdminDeps> {
  const app = container();
  return {
    db: await getDb(),
    mcp: app.mcp,
    builtInToolSets: app.tools.registry.toolSets().map((s) => s.name),
  };
}
