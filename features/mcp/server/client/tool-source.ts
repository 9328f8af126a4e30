import "server-only";
import type { Database } from "@/db";
import type { McpServerRow, McpToolSettingRow } from "@/db/schema";
import type { TenantToolSource } from "@/lib/agent/registry";
import { defineJsonTool, StaticToolSet, type Tool, type ToolSet } from "@/lib/agent/tool";
import { log } from "@/lib/core/process/log";
import type { McpClients } from "./clients";
import { exposedToolNames, toolKeywords } from "./names";
import { toolValue } from "./results";
import { serversOf, settingsOf } from "./store";

export type McpToolSourceOptions = {
  db: () => Promise<Database>;
  clients: McpClients;
  /** How long a tenant's tool sets are reused before the database is read again (default 30 s). */
  ttlMs?: number;
  /** Tenants whose sets are kept at once (default 1,000; the oldest is dropped). */
  maxTenants?: number;
};

/** A tool's settings as the loop applies them; a tool without a row: enabled, every role, no confirmation. */
export type McpToolPolicy = Pick<McpToolSettingRow, "enabled" | "roles" | "requiresConfirmation">;
export const DEFAULT_POLICY: McpToolPolicy = { enabled: true, roles: null, requiresConfirmation: false };

/** Margin so the loop's own timeout, not the SDK's, ends a slow call (with the loop's message). */
const SDK_TIMEOUT_MARGIN_MS = 1_000;

/**
 * The tenant's MCP servers as tool sets: one per server, named after it, offering its listed tools as
 * `server__tool` with the tool's JSON Schema, the admin's roles and confirmation setting, and disabled tools
 * hidden. Read from the stored tool lists (no network on a turn), cached per tenant briefly, dropped on change.
 */
export class McpToolSource implements TenantToolSource {
  private readonly cache = new Map<string, { expires: number; sets: Promise<ToolSet[]> }>();
  private readonly ttlMs: number;
  private readonly maxTenants: number;

  constructor(private readonly options: McpToolSourceOptions) {
    this.ttlMs = options.ttlMs ?? 30_000;
    this.maxTenants = options.maxTenants ?? 1_000;
  }

  toolSets(tenantId: string): Promise<ToolSet[]> {
    const hit = this.cache.get(tenantId);
    if (hit && hit.expires > Date.now()) return hit.sets;
    // A failure to read them costs the tenant its MCP tools for this turn, never the turn.
    const sets = this.load(tenantId).catch((err: unknown) => {
      log.error({ err, tenantId }, "could not load the tenant's MCP tool sets");
      this.cache.delete(tenantId);
      return [];
    });
    this.cache.delete(tenantId);
    this.cache.set(tenantId, { expires: Date.now() + this.ttlMs, sets });
    if (this.cache.size > this.maxTenants) this.cache.delete(this.cache.keys().next().value!);
    return sets;
  }

  /** Forgets the tenant's sets (a server or a tool setting changed, a tool list was refreshed). */
  invalidate(tenantId: string): void {
    this.cache.delete(tenantId);
  }

  private async load(tenantId: string): Promise<ToolSet[]> {
    const db = await this.options.db();
    const [servers, settings] = await Promise.all([serversOf(db, tenantId), settingsOf(db, tenantId)]);
    const policies = new Map(settings.map((s) => [`${s.serverId}\u0000${s.tool}`, s]));
    return servers
      .filter((server) => server.tools?.length)
      .map(
        (server) =>
          new StaticToolSet(
            server.name,
            mcpTools(
              server,
              (tool) => policies.get(`${server.id}\u0000${tool}`) ?? DEFAULT_POLICY,
              this.options.clients,
            ),
          ),
      );
  }
}

/** The loop's tools for one server's listed tools. */
export function mcpTools(
  server: McpServerRow,
  policyOf: (tool: string) => McpToolPolicy,
  clients: McpClients,
): Tool[] {
  const listed = server.tools ?? [];
  const names = exposedToolNames(
    server.name,
    listed.map((t) => t.name),
  );
  return listed.map((info) => {
    const policy = policyOf(info.name);
    return defineJsonTool({
      name: names.get(info.name)!,
      description:
        info.description || info.title || `The ${info.name} tool of the ${server.name} MCP server.`,
      category: "mcp",
      hidden: !policy.enabled,
      roles: policy.roles ?? undefined,
      requiresConfirmation: policy.requiresConfirmation,
      keywords: toolKeywords(info.name, info.title),
      // An MCP server's answers (and its tool descriptions) are its own text; a tool that does not say it only
      // reads (annotations.readOnlyHint) may send what it is given anywhere.
      readsOutsideText: true,
      ...(info.annotations?.readOnlyHint === true ? {} : { sendsTo: () => serverHost(server.url) }),
      timeoutMs: server.timeoutMs,
      inputSchema: info.inputSchema,
      execute: async (args, ctx) =>
        toolValue(
          await clients.call(server, info.name, args, {
            signal: ctx.signal,
            timeoutMs: server.timeoutMs + SDK_TIMEOUT_MARGIN_MS,
          }),
        ),
    });
  });
}

/** The server's host, for the confirmation card. */
function serverHost(url: string): string {
  try {
    return `${new URL(url).host} (MCP server)`;
  } catch {
    return "an MCP server";
  }
}
