import "server-only";
import { and, asc, eq, sql } from "drizzle-orm";
import { type Database, getDb } from "@/db";
import { appUser, sysAgentAudit, tenant } from "@/db/schema";
import { likeContains } from "@/db/sql-text";
import type { PageProvider, ProviderContext } from "@/features/admin-tables/contracts";
import { uuidOr404 } from "@/lib/core/schema/uuid";
import { uuidFilter } from "../query";
import { sqlProvider } from "../sql-provider";

const a = sysAgentAudit;

const fields = {
  id: a.id,
  createdAt: a.createdAt,
  tenantId: a.tenantId,
  tenantName: tenant.name,
  userId: a.userId,
  userEmail: appUser.email,
  turnId: a.turnId,
  conversationId: a.conversationId,
  seq: a.seq,
  type: a.type,
  payload: a.payload,
};

/** The audit trail (sys_agent_audit) for /dev/agent/audit: newest first; a turn's events as a timeline. */
export function agentAuditProvider(database: () => Promise<Database> = getDb): PageProvider {
  return sqlProvider(database, {
    table: a,
    tenantColumn: a.tenantId,
    // UUIDv7 ids follow the order events were written, seq order within a turn.
    idColumn: a.id,
    fields,
    joins: [
      { table: tenant, on: eq(tenant.id, a.tenantId) },
      { table: appUser, on: eq(appUser.id, a.userId) },
    ],
    sorts: { createdAt: { expr: a.createdAt, type: "timestamptz" } },
    filters: {
      turnId: (v) => eq(a.turnId, uuidFilter("turnId", v)),
      user: (v) => sql`${a.userId} in (select id from app_user where email ilike ${likeContains(v)})`,
      conversationId: (v) => eq(a.conversationId, uuidFilter("conversationId", v)),
    },
    negatable: ["user"],
    dateFilters: { createdAt: a.createdAt },
    segmentColumn: a.type,
    suggestions: { user: { value: appUser.email, recent: a.createdAt } },
    measures: {},
    dimensions: { type: a.type, day: sql`date_trunc('day', ${a.createdAt})::date` },
    detail: auditDetail,
  });
}

/** One event with its turn's whole trail, in seq order. */
async function auditDetail(db: Database, ctx: ProviderContext, rawId: string) {
  const id = uuidOr404(rawId);
  const [row] = await db
    .select(fields)
    .from(a)
    .leftJoin(tenant, eq(tenant.id, a.tenantId))
    .leftJoin(appUser, eq(appUser.id, a.userId))
    .where(ctx.tenantId ? and(eq(a.id, id), eq(a.tenantId, ctx.tenantId)) : eq(a.id, id))
    .limit(1);
  if (!row) return null;
  const events = await db
    .select({ id: a.id, seq: a.seq, type: a.type, createdAt: a.createdAt, payload: a.payload })
    .from(a)
    .where(and(eq(a.tenantId, row.tenantId), eq(a.turnId, row.turnId)))
    .orderBy(asc(a.seq));
  return {
    row: { ...row, createdAt: row.createdAt.toISOString() },
    events: events.map((e) => ({ ...e, createdAt: e.createdAt.toISOString() })),
  };
}
