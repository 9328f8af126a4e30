import "server-only";
import type { MembershipRole } from "@/db/schema";
import type { ToolRegistry } from "@/lib/agent/registry";
import type { Tool } from "@/lib/agent/tool";

/**
 * The role a tenant API key acts with over /mcp. A key is not a person and whoever holds it is outside the tenant's
 * sign-in, so it gets what every member may use, never an admin's tools (the governance tools among them).
 */
export const KEY_ROLE: MembershipRole = "member";

/** What /mcp offers one key: the tools it may list and call, and why each other tool of the tenant is withheld. */
export type McpOffer = {
  offered: Map<string, Tool>;
  /** Tools the tenant has that this key may not call, with the reason (said when it tries one anyway). */
  withheld: Map<string, string>;
};

/**
 * Why a tool is not served to a key over /mcp, or null when it is: the drawer's rules for a member (hidden tools
 * and role checks), then what an outside call cannot give (a conversation, a signed-in user, someone in Tollgate
 * to approve a call), then the key's own list (null: every tool the tenant offers).
 */
export function withheldReason(tool: Tool, allowedTools: readonly string[] | null): string | null {
  if (tool.hidden) return "it is switched off";
  if (tool.roles && !tool.roles.includes(KEY_ROLE)) return "it is for tenant admins only";
  if (tool.needs === "conversation") return "it works within a conversation of the agent drawer";
  if (tool.needs === "user") return "it acts as a signed-in user";
  if (tool.requiresConfirmation) return "it needs a person's approval in the agent drawer before each call";
  if (allowedTools && !allowedTools.includes(tool.name)) return "it is not in this API key's allowed tools";
  return null;
}

/**
 * The tenant's governed tools as one key sees them: the app's registered tool sets, then the tenant's own (its MCP
 * servers'; an app tool's name always wins), filtered by `withheldReason`. Tools are used as registered (never a
 * conversation's copies): the ones that keep state per conversation are withheld.
 */
export async function mcpOffer(
  registry: ToolRegistry,
  tenantId: string,
  allowedTools: readonly string[] | null,
): Promise<McpOffer> {
  const tools = [
    ...registry.tools(),
    ...(await registry.tenantToolSets(tenantId)).flatMap((set) => set.tools()),
  ];
  const offer: McpOffer = { offered: new Map(), withheld: new Map() };
  for (const tool of tools) {
    if (offer.offered.has(tool.name) || offer.withheld.has(tool.name)) continue;
    const off = tool.available && !(await tool.available(tenantId));
    const reason = off ? "the organisation switched it off" : withheldReason(tool, allowedTools);
    if (reason) offer.withheld.set(tool.name, reason);
    else offer.offered.set(tool.name, tool);
  }
  return offer;
}
