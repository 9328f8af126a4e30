// The MCP server routes as the browser calls them (dates arrive as strings).
import type { z } from "zod";
import { fetchJson, type Json, sendJson } from "@/lib/client/api";
import type {
  createServerInput,
  McpServerDetail,
  McpServerView,
  McpTestCallResult,
  McpToolView,
  updateToolInput,
} from "./contracts";

const server = (id: string) => `/api/mcp/servers/${encodeURIComponent(id)}`;
const tool = (id: string, name: string) => `${server(id)}/tools/${encodeURIComponent(name)}`;

export const mcpApi = {
  list: (signal?: AbortSignal) => fetchJson<Json<{ servers: McpServerView[] }>>("/api/mcp/servers", signal),
  get: (id: string, signal?: AbortSignal) => fetchJson<Json<McpServerDetail>>(server(id), signal),
  register: (input: z.input<typeof createServerInput>) =>
    sendJson<Json<McpServerDetail>>("POST", "/api/mcp/servers", input),
  refresh: (id: string) => sendJson<Json<McpServerDetail>>("POST", `${server(id)}/refresh`),
  remove: (id: string) => sendJson<{ id: string; deleted: true }>("DELETE", server(id)),
  updateTool: (id: string, name: string, patch: z.input<typeof updateToolInput>) =>
    sendJson<Json<{ tool: McpToolView }>>("PUT", tool(id, name), patch),
  testCall: (id: string, name: string, args: Record<string, unknown>) =>
    sendJson<McpTestCallResult>("POST", `${tool(id, name)}/call`, { arguments: args }),
};
