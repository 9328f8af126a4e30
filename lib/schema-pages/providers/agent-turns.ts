import "server-only";
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import { type Database, getDb } from "@/db";
import { appUser, sysAgentAudit, sysAgentTurn, tenant } from "@/db/schema";
import { likeContains } from "@/db/sql-text";
import { uuidFilter } from "../query";
import { sqlProvider, uuidOr404 } from "../sql-provider";
import type { PageProvider, ProviderContext } from "../types";

const t = sysAgentTurn;

const fields = {
  id: t.id,
  startedAt: t.startedAt,
  tenantId: t.tenantId,
  tenantName: tenant.name,
  userId: t.userId,
  userEmail: appUser.email,
  conversationId: t.conversationId,
  source: t.source,
  status: t.status,
  requestedModel: t.requestedModel,
  servedProvider: t.servedProvider,
  servedAdapter: t.servedAdapter,
  servedModel: t.servedModel,
  attempts: t.attempts,
  fallbackIndex: t.fallbackIndex,
  inputTokens: t.inputTokens,
  cachedInputTokens: t.cachedInputTokens,
  cacheWriteTokens: t.cacheWriteTokens,
  outputTokens: t.outputTokens,
  reasoningTokens: t.reasoningTokens,
  cost: t.cost,
  rounds: t.rounds,
  firstTokenMs: t.firstTokenMs,
  latencyMs: t.latencyMs,
  toolTrace: t.toolTrace,
  tools: sql<string>`(select string_agg(x->>'name', ', ') from jsonb_array_elements(${t.toolTrace}) x)`,
  errorClass: t.errorClass,
  errorMessage: t.errorMessage,
  cacheHits: t.cacheHits,
  apiKeyId: t.apiKeyId,
};

/** The usage ledger (sys_agent_turn) for /dev/agent/turns. */
export function agentTurnsProvider(database: () => Promise<Database> = getDb): PageProvider {
  return sqlProvider(database, {
    table: t,
    tenantColumn: t.tenantId,
    idColumn: t.id,
    fields,
    joins: [
      { table: tenant, on: eq(tenant.id, t.tenantId) },
      { table: appUser, on: eq(appUser.id, t.userId) },
    ],
    sorts: {
      startedAt: { expr: t.startedAt, type: "timestamptz" },
      latencyMs: { expr: sql`coalesce(${t.latencyMs}, -1)`, type: "integer" },
      cost: { expr: sql`coalesce(${t.cost}, -1)`, type: "numeric" },
      inputTokens: { expr: t.inputTokens, type: "integer" },
      outputTokens: { expr: t.outputTokens, type: "integer" },
    },
    filters: {
      servedModel: (v) => eq(t.servedModel, v),
      servedAdapter: (v) => eq(t.servedAdapter, v),
      source: (v) => eq(t.source, v as "drawer"),
      user: (v) => inArray(t.userId, sql`(select id from app_user where email ilike ${likeContains(v)})`),
      conversationId: (v) => eq(t.conversationId, uuidFilter("conversationId", v)),
      // A tool's exact name: containment on the jsonb trace.
      tool: (v) => sql`${t.toolTrace} @> ${JSON.stringify([{ name: v.trim() }])}::jsonb`,
      // Turns answered (at least in part) from the response cache, or not at all.
      cache: (v) => (v === "hit" ? sql`${t.cacheHits} > 0` : sql`${t.cacheHits} = 0`),
    },
    dateFilters: { startedAt: t.startedAt },
    segmentColumn: t.status,
    measures: {
      inputTokens: t.inputTokens,
      outputTokens: t.outputTokens,
      cachedInputTokens: t.cachedInputTokens,
      cost: t.cost,
      latencyMs: t.latencyMs,
    },
    dimensions: {
      servedModel: t.servedModel,
      servedAdapter: t.servedAdapter,
      status: t.status,
      user: appUser.email,
      day: sql`date_trunc('day', ${t.startedAt})::date`,
    },
    detail: turnDetail,
  });
}

async function turnDetail(db: Database, ctx: ProviderContext, rawId: string) {
  const id = uuidOr404(rawId);
  const scope = ctx.tenantId ? and(eq(t.id, id), eq(t.tenantId, ctx.tenantId)) : eq(t.id, id);
  const [row] = await db
    .select(fields)
    .from(t)
    .leftJoin(tenant, eq(tenant.id, t.tenantId))
    .leftJoin(appUser, eq(appUser.id, t.userId))
    .where(scope)
    .limit(1);
  if (!row) return null;
  const events = await db
    .select({
      id: sysAgentAudit.id,
      seq: sysAgentAudit.seq,
      type: sysAgentAudit.type,
      createdAt: sysAgentAudit.createdAt,
      payload: sysAgentAudit.payload,
    })
    .from(sysAgentAudit)
    .where(and(eq(sysAgentAudit.tenantId, row.tenantId), eq(sysAgentAudit.turnId, id)))
    .orderBy(asc(sysAgentAudit.seq));
  return {
    row: { ...row, startedAt: row.startedAt.toISOString() },
    events: events.map((e) => ({ ...e, createdAt: e.createdAt.toISOString() })),
  };
}
