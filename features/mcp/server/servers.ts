// A tenant admin's MCP servers: register (connect and list first), list with status, show with tools and their
// settings, change a tool's settings, refresh, remove, and test-call a tool. Every change is an admin-change row.
import "server-only";
import { and, eq } from "drizzle-orm";
import { v7 as uuidv7 } from "uuid";
import type { z } from "zod";
import type { Database } from "@/db";
import { type McpServerRow, type McpToolSettingRow, mcpServer, mcpToolSetting } from "@/db/schema";
import type {
  createServerInput,
  McpServerDetail,
  McpServerView,
  McpTestCallResult,
  McpToolView,
  updateToolInput,
} from "@/features/mcp/contracts";
import { type Mcp, McpFailure, type McpServerConfig } from "@/features/mcp/server/client";
import { exposedToolNames } from "@/features/mcp/server/client/names";
import { serverOf, serversOf, settingsOf } from "@/features/mcp/server/client/store";
import { DEFAULT_POLICY, mcpTools } from "@/features/mcp/server/client/tool-source";
import { runToolCall } from "@/lib/agent/run-tools";
import { type Actor, recordChange } from "@/lib/changes/changes";
import { AppError, notFound } from "@/lib/core/errors/app-error";
import { maskText } from "@/lib/core/text/mask";

export type McpAdminDeps = {
  db: Database;
  mcp: Mcp;
  /** The app's own tool sets' names: a server may not take one (its tools would be offered under that set). */
  builtInToolSets: readonly string[];
};

type CreateInput = z.output<typeof createServerInput>;
type ToolPatch = z.output<typeof updateToolInput>;

const TEST_RESULT_IN_LOG = 2_000;

/**
 * Registers a server after reaching it: the URL must pass the address guard and the server must answer the MCP
 * handshake and list its tools, else nothing is stored and the answer says why (400, field `url`).
 */
export async function registerServer(
  deps: McpAdminDeps,
  tenantId: string,
  input: CreateInput,
  actor: Actor,
  signal?: AbortSignal,
): Promise<McpServerDetail> {
  const { db, mcp } = deps;
  if (deps.builtInToolSets.includes(input.name))
    throw new AppError("conflict", `"${input.name}" is the name of a built-in tool set`, {
      fields: { name: [`"${input.name}" is taken by a built-in tool set; choose another name`] },
    });
  await nameIsFree(db, tenantId, input.name);
  const headerEntries = Object.entries(input.headers ?? {});
  if (headerEntries.length && !mcp.clients.canSeal)
    throw new AppError(
      "bad_request",
      "header values are stored encrypted with MCP_SECRET_KEY, which is not set on this server; ask the operator to set it (32 bytes, base64 or hex)",
      { fields: { headers: ["MCP_SECRET_KEY is not set, so header values cannot be stored"] } },
    );
  const id = uuidv7();
  const config: McpServerConfig = {
    id,
    tenantId,
    name: input.name,
    url: input.url,
    transport: input.transport,
    timeoutMs: input.timeoutMs,
    headers: headerEntries.map(([name, value]) => ({
      name,
      sealed: mcp.clients.seal({ tenantId, id }, name, value),
    })),
  };
  let listing: Awaited<ReturnType<typeof mcp.clients.list>>;
  try {
    listing = await mcp.clients.list(config, signal);
  } catch (error) {
    mcp.clients.forget(id);
    throw unreachable(error);
  }
  const row = await db
    .transaction(async (tx) => {
      const [created] = await tx
        .insert(mcpServer)
        .values({
          ...config,
          tools: listing.tools,
          toolsListedAt: listing.checkedAt,
          connectedTransport: listing.transport,
          lastCheckedAt: listing.checkedAt,
          lastLatencyMs: listing.latencyMs,
          createdBy: actor.id,
        })
        .onConflictDoNothing()
        .returning();
      if (!created) throw nameTaken(input.name);
      await recordChange(tx, actor, {
        tenantId,
        action: "mcp_server.registered",
        objectType: "mcp_server",
        objectId: id,
        before: null,
        after: {
          ...configSummary(created),
          tools: listing.tools.map((t) => t.name),
        },
      });
      return created;
    })
    .catch((error: unknown) => {
      mcp.clients.forget(id);
      throw error;
    });
  mcp.source.invalidate(tenantId);
  return detailOf(row, []);
}

/** The tenant's servers with their last status, by name. */
export async function listServers(
  deps: Pick<McpAdminDeps, "db">,
  tenantId: string,
): Promise<McpServerView[]> {
  return (await serversOf(deps.db, tenantId)).map(viewOf);
}

/** One server with its tools and their settings; another tenant's id is 404. */
export async function serverDetail(
  deps: Pick<McpAdminDeps, "db">,
  tenantId: string,
  id: string,
): Promise<McpServerDetail> {
  const row = await serverOrThrow(deps.db, tenantId, id);
  return detailOf(row, await settingsOf(deps.db, tenantId, id));
}

/** Changes one tool's settings (enabled, roles, confirmation); the tool must be one the server listed. */
export async function updateToolSetting(
  deps: McpAdminDeps,
  tenantId: string,
  id: string,
  tool: string,
  patch: ToolPatch,
  actor: Actor,
): Promise<McpToolView> {
  const { db, mcp } = deps;
  const row = await serverOrThrow(db, tenantId, id);
  if (!row.tools?.some((t) => t.name === tool)) throw notFound(`tool "${tool}" of ${row.name}`);
  await db.transaction(async (tx) => {
    const [current] = await tx
      .select()
      .from(mcpToolSetting)
      .where(
        and(
          eq(mcpToolSetting.tenantId, tenantId),
          eq(mcpToolSetting.serverId, id),
          eq(mcpToolSetting.tool, tool),
        ),
      )
      .for("update");
    const before = policyOf(current);
    // Every role listed is the same as no restriction, and stored as such.
    const roles = patch.roles === undefined ? before.roles : normalRoles(patch.roles);
    const after = {
      enabled: patch.enabled ?? before.enabled,
      roles,
      requiresConfirmation: patch.requiresConfirmation ?? before.requiresConfirmation,
    };
    await tx
      .insert(mcpToolSetting)
      .values({ tenantId, serverId: id, tool, ...after, updatedBy: actor.id })
      .onConflictDoUpdate({
        target: [mcpToolSetting.tenantId, mcpToolSetting.serverId, mcpToolSetting.tool],
        set: { ...after, updatedBy: actor.id, updatedAt: new Date() },
      });
    await recordChange(tx, actor, {
      tenantId,
      action: "mcp_server.tool_updated",
      objectType: "mcp_server",
      objectId: id,
      before: { server: row.name, tool, ...before },
      after: { server: row.name, tool, ...after },
    });
  });
  mcp.source.invalidate(tenantId);
  const detail = detailOf(row, await settingsOf(db, tenantId, id));
  return detail.tools.find((t) => t.name === tool)!;
}

/** Lists the server's tools again now and stores them (and the status); a failure is 400 with the reason. */
export async function refreshServer(
  deps: McpAdminDeps,
  tenantId: string,
  id: string,
  actor: Actor,
  signal?: AbortSignal,
): Promise<McpServerDetail> {
  const { db, mcp } = deps;
  const row = await serverOrThrow(db, tenantId, id);
  let added: string[];
  try {
    ({ added } = await mcp.clients.refresh(row, signal));
  } catch (error) {
    throw unreachable(error);
  }
  const fresh = await serverOrThrow(db, tenantId, id);
  const names = (r: McpServerRow) => (r.tools ?? []).map((t) => t.name);
  await recordChange(db, actor, {
    tenantId,
    action: "mcp_server.refreshed",
    objectType: "mcp_server",
    objectId: id,
    before: { name: row.name, tools: names(row) },
    after: { name: row.name, tools: names(fresh), ...(added.length ? { addedSwitchedOff: added } : {}) },
  });
  return detailOf(fresh, await settingsOf(db, tenantId, id));
}

/** Removes the server and its tool settings; its tools leave the tenant's turns at once (this instance). */
export async function deleteServer(
  deps: McpAdminDeps,
  tenantId: string,
  id: string,
  actor: Actor,
): Promise<void> {
  const { db, mcp } = deps;
  await db.transaction(async (tx) => {
    const [gone] = await tx
      .delete(mcpServer)
      .where(and(eq(mcpServer.tenantId, tenantId), eq(mcpServer.id, id)))
      .returning();
    if (!gone) throw notFound("MCP server");
    await recordChange(tx, actor, {
      tenantId,
      action: "mcp_server.deleted",
      objectType: "mcp_server",
      objectId: id,
      before: configSummary(gone),
      after: null,
    });
  });
  mcp.clients.forget(id);
  mcp.source.invalidate(tenantId);
}

/**
 * Runs one tool as the admin, as the loop would (arguments checked against its schema, the server's timeout,
 * error results and failures as `{"error"}`, the result cut at 8,000 characters), whatever its settings (so a tool
 * can be tried before it is enabled). Recorded as an admin change with the arguments and result, masked.
 */
export async function testCallTool(
  deps: McpAdminDeps,
  access: { tenantId: string; userId: string; role: "member" | "admin" },
  id: string,
  toolName: string,
  args: Record<string, unknown>,
  actor: Actor,
  signal: AbortSignal,
): Promise<McpTestCallResult> {
  const { db, mcp } = deps;
  const row = await serverOrThrow(db, access.tenantId, id);
  const [tool] = mcpTools(
    { ...row, tools: (row.tools ?? []).filter((t) => t.name === toolName) },
    () => DEFAULT_POLICY,
    mcp.clients,
  );
  if (!tool) throw notFound(`tool "${toolName}" of ${row.name}`);
  const outcome = await runToolCall(
    { id: `test_${uuidv7()}`, name: tool.name, args },
    {
      tools: new Map([[tool.name, tool]]),
      mayCall: () => true,
      maxConcurrent: 1,
      defaultTimeoutMs: row.timeoutMs,
      signal,
      context: (_call, toolSignal) => ({
        tenantId: access.tenantId,
        userId: access.userId,
        role: access.role,
        // A test call belongs to no conversation or turn.
        conversationId: "",
        turnId: "",
        signal: toolSignal,
        emit: async () => {},
        addUsage: () => {},
        // A test call is recorded as an admin change, not a ledger row: nothing to note.
        noteUse: () => {},
      }),
    },
  );
  const error = outcome.ok ? null : errorMessage(outcome.content);
  const result: McpTestCallResult = error
    ? { ok: false, error, durationMs: outcome.trace.durationMs }
    : { ok: true, content: outcome.content, durationMs: outcome.trace.durationMs };
  await recordChange(db, actor, {
    tenantId: access.tenantId,
    action: "mcp_server.tool_test_called",
    objectType: "mcp_server",
    objectId: id,
    before: null,
    after: {
      server: row.name,
      tool: toolName,
      arguments: args,
      ok: outcome.ok,
      durationMs: outcome.trace.durationMs,
      ...(error ? { error } : { result: outcome.content.slice(0, TEST_RESULT_IN_LOG) }),
    },
  });
  return result;
}

async function serverOrThrow(db: Database, tenantId: string, id: string): Promise<McpServerRow> {
  const row = await serverOf(db, tenantId, id);
  if (!row) throw notFound("MCP server");
  return row;
}

async function nameIsFree(db: Database, tenantId: string, name: string): Promise<void> {
  const [taken] = await db
    .select({ id: mcpServer.id })
    .from(mcpServer)
    .where(and(eq(mcpServer.tenantId, tenantId), eq(mcpServer.name, name)));
  if (taken) throw nameTaken(name);
}

const nameTaken = (name: string) =>
  new AppError("conflict", `an MCP server named "${name}" is already registered`, {
    fields: { name: [`"${name}" is taken`] },
  });

/** A server that could not be used, as the admin's 400: the address guard's refusal or the failure, on `url`. */
function unreachable(error: unknown): unknown {
  if (!(error instanceof McpFailure)) return error;
  const message = error.refused
    ? `the URL is refused: ${error.message.replace(/^refused: /, "")}${/loopback|private|link-local|unique-local|carrier-grade/.test(error.message) ? " (an operator can open internal ranges with WEB_FETCH_ALLOW)" : ""}`
    : `the server could not be used: ${error.message}`;
  return new AppError("bad_request", message, { fields: { url: [message] } });
}

const configSummary = (row: McpServerRow) => ({
  name: row.name,
  url: row.url,
  transport: row.transport,
  headerNames: row.headers.map((h) => h.name),
  timeoutMs: row.timeoutMs,
});

const policyOf = (row: McpToolSettingRow | undefined) =>
  row
    ? { enabled: row.enabled, roles: row.roles, requiresConfirmation: row.requiresConfirmation }
    : DEFAULT_POLICY;

function normalRoles(roles: ("member" | "admin")[] | null): ("member" | "admin")[] | null {
  if (!roles) return null;
  const unique = [...new Set(roles)].sort();
  return unique.length === 2 ? null : unique;
}

function viewOf(row: McpServerRow): McpServerView {
  return {
    id: row.id,
    name: row.name,
    // A key some servers take in the URL (a path segment, `?api_key=`) is not shown back either.
    url: maskText(row.url),
    transport: row.transport,
    headerNames: row.headers.map((h) => h.name),
    timeoutMs: row.timeoutMs,
    createdAt: row.createdAt,
    status: {
      reachable: row.lastCheckedAt ? row.lastError === null : null,
      toolCount: row.tools?.length ?? 0,
      lastError: row.lastError,
      latencyMs: row.lastLatencyMs,
      checkedAt: row.lastCheckedAt,
      connectedTransport: row.connectedTransport,
    },
  };
}

function detailOf(row: McpServerRow, settings: McpToolSettingRow[]): McpServerDetail {
  const listed = row.tools ?? [];
  const names = exposedToolNames(
    row.name,
    listed.map((t) => t.name),
  );
  const byTool = new Map(settings.map((s) => [s.tool, s]));
  return {
    ...viewOf(row),
    toolsListedAt: row.toolsListedAt,
    tools: listed.map((t) => ({
      name: t.name,
      exposedName: names.get(t.name)!,
      ...(t.title ? { title: t.title } : {}),
      ...(t.description ? { description: t.description } : {}),
      inputSchema: t.inputSchema,
      ...(t.annotations ? { annotations: t.annotations } : {}),
      ...policyOf(byTool.get(t.name)),
      addedLater: byTool.get(t.name)?.updatedBy === null,
    })),
  };
}

/** The message of a `{"error": …}` result. */
function errorMessage(content: string): string {
  try {
    const parsed: unknown = JSON.parse(content);
    if (parsed && typeof parsed === "object" && "error" in parsed)
      return String((parsed as { error: unknown }).error);
  } catch {}
  return content;
}
