import "server-only";
import type { Database } from "@/db";
import { parseAllowList, type Resolver } from "@/lib/agent/toolsets/web/net-guard";
import { McpClients } from "./clients";
import { maxResponseBytesFromEnv } from "./guarded-fetch";
import { secretBoxFromEnv } from "./secrets";
import { McpToolSource } from "./tool-source";

export type { McpClients, McpServerConfig } from "./clients";
export { McpFailure } from "./errors";
export type { McpToolSource } from "./tool-source";

/** The tenants' MCP servers as the process uses them: one set of sessions, and the tool sets offered to turns. */
export type Mcp = { clients: McpClients; source: McpToolSource };

export type McpOptions = {
  db: () => Promise<Database>;
  /**
   * Reads MCP_SECRET_KEY (header sealing), WEB_FETCH_ALLOW (the address guard's allow-list, as web_fetch) and
   * MCP_MAX_RESPONSE_BYTES (the size limit of a server's response).
   */
  env: Record<string, string | undefined>;
  resolver?: Resolver;
  idleMs?: number;
  ttlMs?: number;
};

/** Builds the process's MCP client side (the composition root calls it once). */
export function createMcp(options: McpOptions): Mcp {
  let source: McpToolSource | null = null;
  const clients = new McpClients({
    db: options.db,
    allow: parseAllowList(options.env.WEB_FETCH_ALLOW),
    resolver: options.resolver,
    maxResponseBytes: maxResponseBytesFromEnv(options.env),
    box: secretBoxFromEnv(options.env),
    idleMs: options.idleMs,
    onToolsChanged: (tenantId) => source?.invalidate(tenantId),
  });
  source = new McpToolSource({ db: options.db, clients, ttlMs: options.ttlMs });
  return { clients, source };
}
