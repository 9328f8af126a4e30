import "server-only";
import { z } from "zod";
import { createServerInput, testCallInput, updateToolInput } from "@/features/mcp/contracts";
import { AT, ID } from "../examples";
import { answer, json, type Operation } from "../registry";
import { mcpServerDetail, mcpServerView, mcpToolView, uuid } from "../shapes";

const TAG = "MCP servers";
const serverId = z.object({ id: z.uuid() });
const toolPath = z.object({ id: z.uuid(), tool: z.string().describe("the tool's name on its server") });

const server = {
  id: ID.server,
  name: "github",
  url: "https://mcp.example.com/mcp",
  transport: "auto" as const,
  headerNames: ["Authorization"],
  timeoutMs: 30000,
  createdAt: AT,
  status: {
    reachable: true,
    toolCount: 1,
    lastError: null,
    latencyMs: 120,
    checkedAt: AT,
    connectedTransport: "streamable" as const,
  },
};
const tool = {
  name: "search_issues",
  exposedName: "github__search_issues",
  description: "Search the repository's issues",
  inputSchema: { type: "object", properties: { q: { type: "string" } } },
  enabled: true,
  roles: null,
  requiresConfirmation: false,
  addedLater: false,
};
const detail = { ...server, toolsListedAt: AT, tools: [tool] };
const UNREACHABLE = "the server cannot be reached or used (the reason names `url`)";

export const mcpServerOperations: Operation[] = [
  {
    method: "GET",
    path: "/api/mcp/servers",
    route: "app/api/mcp/servers/route.ts",
    operationId: "listMcpServers",
    tag: TAG,
    summary: "The tenant's MCP servers",
    description: "With their status; header names only, never their values.",
    guard: "tenant-admin",
    tenant: true,
    answers: {
      200: answer("The servers.", z.object({ servers: z.array(mcpServerView) }), { servers: [server] }),
    },
    errorDialect: "app",
  },
  {
    method: "POST",
    path: "/api/mcp/servers",
    route: "app/api/mcp/servers/route.ts",
    operationId: "registerMcpServer",
    tag: TAG,
    summary: "Register an MCP server",
    description:
      "Once it answered and listed its tools, which start enabled for every role. Header values are stored encrypted and never shown again.",
    guard: "tenant-admin",
    tenant: true,
    body: json(
      createServerInput,
      { name: "github", url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer ghp_…" } },
      "CreateMcpServerInput",
    ),
    answers: { 201: answer("The server with its tools.", mcpServerDetail, detail, "McpServerDetail") },
    errorDialect: "app",
    errors: { 400: UNREACHABLE, 409: "a server of this name exists" },
  },
  {
    method: "GET",
    path: "/api/mcp/servers/{id}",
    route: "app/api/mcp/servers/[id]/route.ts",
    operationId: "getMcpServer",
    tag: TAG,
    summary: "One server with its tools and their settings",
    guard: "tenant-admin",
    tenant: true,
    params: { path: serverId },
    answers: { 200: answer("The server.", mcpServerDetail, detail, "McpServerDetail") },
    errorDialect: "app",
  },
  {
    method: "DELETE",
    path: "/api/mcp/servers/{id}",
    route: "app/api/mcp/servers/[id]/route.ts",
    operationId: "deleteMcpServer",
    tag: TAG,
    summary: "Remove a server and its tool settings",
    guard: "tenant-admin",
    tenant: true,
    params: { path: serverId },
    answers: {
      200: answer("Removed.", z.object({ id: uuid, deleted: z.literal(true) }), {
        id: ID.server,
        deleted: true,
      }),
    },
    errorDialect: "app",
  },
  {
    method: "POST",
    path: "/api/mcp/servers/{id}/refresh",
    route: "app/api/mcp/servers/[id]/refresh/route.ts",
    operationId: "refreshMcpServer",
    tag: TAG,
    summary: "List the server's tools again now",
    description:
      "A tool listed for the first time starts switched off (`addedLater`) until an admin decides.",
    guard: "tenant-admin",
    tenant: true,
    params: { path: serverId },
    answers: { 200: answer("The server with its tools.", mcpServerDetail, detail, "McpServerDetail") },
    errorDialect: "app",
    errors: { 400: UNREACHABLE },
  },
  {
    method: "PUT",
    path: "/api/mcp/servers/{id}/tools/{tool}",
    route: "app/api/mcp/servers/[id]/tools/[tool]/route.ts",
    operationId: "updateMcpTool",
    tag: TAG,
    summary: "Change one tool's settings",
    description: "Enabled, the roles that may call it, and whether it waits for the user's Approve / Deny.",
    guard: "tenant-admin",
    tenant: true,
    params: { path: toolPath },
    body: json(updateToolInput, { roles: ["admin"], requiresConfirmation: true }, "UpdateMcpToolInput"),
    answers: {
      200: answer("The tool as it now is.", z.object({ tool: mcpToolView }), {
        tool: { ...tool, roles: ["admin"], requiresConfirmation: true },
      }),
    },
    errorDialect: "app",
    errors: { 404: "no such server or tool" },
  },
  {
    method: "POST",
    path: "/api/mcp/servers/{id}/tools/{tool}/call",
    route: "app/api/mcp/servers/[id]/tools/[tool]/call/route.ts",
    operationId: "testCallMcpTool",
    tag: TAG,
    summary: "Test-call a tool",
    description:
      "Runs the tool as the agent loop would and answers what the model would read (cut at 8,000 characters), or the error it would get. Recorded in the admin-change log, masked.",
    guard: "tenant-admin",
    tenant: true,
    params: { path: toolPath },
    body: json(testCallInput, { arguments: { q: "is:open label:bug" } }, "TestCallInput"),
    answers: {
      200: answer(
        "What the model would read (`ok: false` with the error otherwise).",
        z.discriminatedUnion("ok", [
          z.object({ ok: z.literal(true), content: z.string(), durationMs: z.number() }),
          z.object({ ok: z.literal(false), error: z.string(), durationMs: z.number() }),
        ]),
        { ok: true, content: '[{"number":42,"title":"Crash on save"}]', durationMs: 310 },
      ),
    },
    errorDialect: "app",
    errors: { 404: "no such server or tool" },
  },
];
