import { and, asc, desc, eq, lt, sql } from "drizzle-orm";
import type { Database } from "@/db";
import { type SysAgentAudit, type SysAgentTurn, sysAgentAudit, sysAgentTurn } from "@/db/schema";
import { notFound } from "@/lib/errors";

/** A running turn older than this was left by a process that died; nothing legitimately runs that long. */
export const INTERRUPTED_AFTER_MS = 15 * 60 * 1000;

/** One turn of this tenant; another tenant's id is "not found". */
export async function getTurnOrThrow(
  db: Database,
  q: { tenantId: string; turnId: string },
): Promise<SysAgentTurn> {
  const [row] = await db
    .select()
    .from(sysAgentTurn)
    .where(and(eq(sysAgentTurn.tenantId, q.tenantId), eq(sysAgentTurn.id, q.turnId)))
    .limit(1);
  if (!row) throw notFound("turn");
  return row;
}

/** The tenant's latest turns, newest first (the admin pages page through them by keyset). */
export async function listTurns(
  db: Database,
  q: { tenantId: string; limit?: number; before?: Date },
): Promise<SysAgentTurn[]> {
  const scope = eq(sysAgentTurn.tenantId, q.tenantId);
  return db
    .select()
    .from(sysAgentTurn)
    .where(q.before ? and(scope, lt(sysAgentTurn.startedAt, q.before)) : scope)
    .orderBy(desc(sysAgentTurn.startedAt))
    .limit(Math.min(q.limit ?? 50, 500));
}

/** A turn's audit trail in order; empty for another tenant's turn. */
export async function auditTrail(
  db: Database,
  q: { tenantId: string; turnId: string },
): Promise<SysAgentAudit[]> {
  return db
    .select()
    .from(sysAgentAudit)
    .where(and(eq(sysAgentAudit.tenantId, q.tenantId), eq(sysAgentAudit.turnId, q.turnId)))
    .orderBy(asc(sysAgentAudit.seq));
}

/** Marks turns left `running` by a crashed process as `interrupted`. Returns how many. */
export async function sweepInterruptedTurns(
  db: Database,
  opts: { now?: Date; olderThanMs?: number } = {},
): Promise<number> {
  const cutoff = new Date((opts.now ?? new Date()).getTime() - (opts.olderThanMs ?? INTERRUPTED_AFTER_MS));
  const swept = await db
    .update(sysAgentTurn)
    .set({
      status: "interrupted",
      errorClass: "interrupted",
      errorMessage: "the process handling this turn stopped before it finished",
    })
    .where(
      and(
        eq(sysAgentTurn.status, "running"),
        sql`${sysAgentTurn.startedAt} < ${cutoff.toISOString()}::timestamptz`,
      ),
    )
    .returning({ id: sysAgentTurn.id });
  return swept.length;
}
