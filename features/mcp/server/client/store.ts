import "server-only";
import { and, asc, eq } from "drizzle-orm";
import type { Database, Executor } from "@/db";
import {
  type McpServerRow,
  type McpToolInfo,
  type McpToolSettingRow,
  mcpServer,
  mcpToolSetting,
} from "@/db/schema";

/** What reaching a server found out: its tools, the transport that worked, how long it took. */
export type McpListing = {
  tools: McpToolInfo[];
  transport: "streamable" | "sse";
  latencyMs: number;
  checkedAt: Date;
};

/** The tenant's servers, by name. */
export function serversOf(db: Executor, tenantId: string): Promise<McpServerRow[]> {
  return db.select().from(mcpServer).where(eq(mcpServer.tenantId, tenantId)).orderBy(asc(mcpServer.name));
}

/** One of the tenant's servers; null for an unknown id or another tenant's. */
export async function serverOf(db: Executor, tenantId: string, id: string): Promise<McpServerRow | null> {
  const [row] = await db
    .select()
    .from(mcpServer)
    .where(and(eq(mcpServer.tenantId, tenantId), eq(mcpServer.id, id)));
  return row ?? null;
}

/** The tenant's per-tool settings, of one server or of all. */
export function settingsOf(db: Executor, tenantId: string, serverId?: string): Promise<McpToolSettingRow[]> {
  return db
    .select()
    .from(mcpToolSetting)
    .where(
      serverId
        ? and(eq(mcpToolSetting.tenantId, tenantId), eq(mcpToolSetting.serverId, serverId))
        : eq(mcpToolSetting.tenantId, tenantId),
    );
}

/**
 * Stores a successful listing: the tools, and a status that says the server answered. A tool the server did not
 * list before is stored switched off (a server cannot slip a new tool into the tenant's turns; an admin enables
 * it); the answer names those tools.
 */
export async function recordListing(
  db: Database,
  tenantId: string,
  id: string,
  listing: McpListing,
): Promise<{ added: string[] }> {
  return db.transaction(async (tx) => {
    const [current] = await tx
      .select({ tools: mcpServer.tools })
      .from(mcpServer)
      .where(and(eq(mcpServer.tenantId, tenantId), eq(mcpServer.id, id)))
      .for("update");
    if (!current) return { added: [] };
    const known = new Set((current.tools ?? []).map((t) => t.name));
    const added = current.tools ? listing.tools.map((t) => t.name).filter((name) => !known.has(name)) : [];
    await tx
      .update(mcpServer)
      .set({
        tools: listing.tools,
        toolsListedAt: listing.checkedAt,
        connectedTransport: listing.transport,
        lastCheckedAt: listing.checkedAt,
        lastError: null,
        lastLatencyMs: listing.latencyMs,
      })
      .where(and(eq(mcpServer.tenantId, tenantId), eq(mcpServer.id, id)));
    if (added.length)
      await tx
        .insert(mcpToolSetting)
        .values(added.map((tool) => ({ tenantId, serverId: id, tool, enabled: false, updatedBy: null })))
        .onConflictDoNothing();
    return { added };
  });
}

/** Stores that a (new) session reached the server: the transport that worked and the handshake's time. */
export async function recordReached(
  db: Executor,
  tenantId: string,
  id: string,
  reached: { transport: "streamable" | "sse"; latencyMs: number; checkedAt: Date },
): Promise<void> {
  await db
    .update(mcpServer)
    .set({
      connectedTransport: reached.transport,
      lastCheckedAt: reached.checkedAt,
      lastError: null,
      lastLatencyMs: reached.latencyMs,
    })
    .where(and(eq(mcpServer.tenantId, tenantId), eq(mcpServer.id, id)));
}

/** Stores a failed attempt to reach the server (its cached tools stay as they were). */
export async function recordFailure(
  db: Executor,
  tenantId: string,
  id: string,
  failure: { error: string; checkedAt: Date },
): Promise<void> {
  await db
    .update(mcpServer)
    .set({ lastCheckedAt: failure.checkedAt, lastError: failure.error, lastLatencyMs: null })
    .where(and(eq(mcpServer.tenantId, tenantId), eq(mcpServer.id, id)));
}
