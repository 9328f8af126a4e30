// Tenants' MCP servers and their tools' settings.
import "server-only";
import {
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { createdAt, id, updatedAt } from "./columns";
import { tenantRef } from "./references";
import { membershipRole } from "./tenants";

export const MCP_TRANSPORTS = ["auto", "streamable", "sse"] as const;
export type McpTransport = (typeof MCP_TRANSPORTS)[number];

/** A header sent to an MCP server: its name in clear, its value sealed (AES-256-GCM, features/mcp/server/client/secrets.ts). */
export type McpSealedHeader = { name: string; sealed: string };

/** A tool as its server last listed it (the parts Tollgate uses). */
export type McpToolInfo = {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
};

// A remote MCP server a tenant admin registered; its enabled tools become a tool set named after it. The tool
// list is cached here (refreshed on demand and when the server announces a change), with the last check's status.
export const mcpServer = pgTable(
  "mcp_server",
  {
    id: id(),
    tenantId: tenantRef(),
    // [a-z0-9_-]: the tool set's name and the prefix of its tools' names (`name__tool`).
    name: text("name").notNull(),
    url: text("url").notNull(),
    transport: text("transport", { enum: MCP_TRANSPORTS }).notNull().default("auto"),
    // The transport the last connection used (what "auto" found).
    connectedTransport: text("connected_transport", { enum: ["streamable", "sse"] }),
    headers: jsonb("headers").$type<McpSealedHeader[]>().notNull().default([]),
    timeoutMs: integer("timeout_ms").notNull().default(30_000),
    // null until the first listing.
    tools: jsonb("tools").$type<McpToolInfo[]>(),
    toolsListedAt: timestamp("tools_listed_at", { withTimezone: true }),
    lastCheckedAt: timestamp("last_checked_at", { withTimezone: true }),
    // null: the last check reached the server.
    lastError: text("last_error"),
    lastLatencyMs: integer("last_latency_ms"),
    createdBy: uuid("created_by").notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("mcp_server_tenant_name_idx").on(t.tenantId, t.name)],
);
export type McpServerRow = typeof mcpServer.$inferSelect;

// An admin's setting for one tool of a server; a tool without a row is enabled for every role, unconfirmed. A tool
// that appears after registration gets a row switched off (updated_by null: set by Tollgate, not an admin).
export const mcpToolSetting = pgTable(
  "mcp_tool_setting",
  {
    tenantId: tenantRef(),
    serverId: uuid("server_id")
      .notNull()
      .references(() => mcpServer.id, { onDelete: "cascade" }),
    // The tool's name on its server.
    tool: text("tool").notNull(),
    enabled: boolean("enabled").notNull().default(true),
    // null: every role.
    roles: membershipRole("roles").array(),
    requiresConfirmation: boolean("requires_confirmation").notNull().default(false),
    updatedBy: uuid("updated_by"),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.serverId, t.tool] }),
    // Deleting a server cascades to its settings without a scan.
    index("mcp_tool_setting_server_idx").on(t.serverId),
  ],
);
export type McpToolSettingRow = typeof mcpToolSetting.$inferSelect;
