import "server-only";
import { and, asc, desc, eq, lt, type SQL, sql } from "drizzle-orm";
import type { Database } from "@/db";
import { type SysAgentAudit, type SysAgentTurn, sysAgentAudit, sysAgentTurn } from "@/db/schema";
import { notFound } from "@/lib/core/errors/app-error";
import { HEARTBEAT_TIMEOUT_MS } from "./instance";
import {
  IN_ROLLUP,
  LEDGER_ROLLUP_SELECT,
  ROLLUP_COLUMNS,
  ROLLUP_GROUP,
  ROLLUP_UPSERT,
  rollupSet,
} from "./rollup-sql";

/**
 * The last resort for running rows without an instance id: older than this, they were left by a process that
 * died (nothing legitimately runs that long). Rows with an instance are swept as soon as it is dead.
 */
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

export const INTERRUPTED_MESSAGE = "the process handling this turn stopped before it finished";

export type SweepOptions = {
  /** The clock for the age-based last resort (rows without an instance). */
  now?: Date;
  /** Age after which a running row without an instance counts as interrupted. */
  olderThanMs?: number;
  /** An instance whose heartbeat is older than this is dead. */
  heartbeatTimeoutMs?: number;
};

/**
 * Marks turns left `running` by a dead process as `interrupted`, and adds them to the daily rollups in the
 * same statement (as closing a turn does), so rollups keep equalling the ledger. A turn is left by a dead
 * process when its instance's heartbeat is stale (or its instance never registered and the turn is older than
 * the heartbeat timeout); turns of live instances are never touched. Rows without an instance (written before
 * instances existed) fall back to the age rule. Concurrent sweeps cannot count a turn twice: the update
 * re-checks `status = 'running'` on the locked row. Returns how many turns were swept.
 */
export async function sweepInterruptedTurns(
  db: Pick<Database, "execute">,
  opts: SweepOptions = {},
): Promise<number> {
  const cutoff = new Date((opts.now ?? new Date()).getTime() - (opts.olderThanMs ?? INTERRUPTED_AFTER_MS));
  const timeout = `${opts.heartbeatTimeoutMs ?? HEARTBEAT_TIMEOUT_MS} milliseconds`;
  return markInterrupted(
    db,
    sql`(
        (t.instance_id is null and t.started_at < ${cutoff.toISOString()}::timestamptz)
        or (t.instance_id is not null and not exists (
          select 1 from instance i where i.id = t.instance_id and i.heartbeat_at > now() - ${timeout}::interval
        ) and (
          exists (select 1 from instance i where i.id = t.instance_id)
          or t.started_at < now() - ${timeout}::interval
        ))
      )`,
  );
}

/**
 * Marks the turns this process (`instanceId`) still has `running` as `interrupted`, with their rollup lines, as
 * the sweep would: the last step of a graceful shutdown, so nothing it could not finish is left `running`.
 */
export async function interruptTurnsOf(db: Pick<Database, "execute">, instanceId: string): Promise<number> {
  return markInterrupted(db, sql`t.instance_id = ${instanceId}`);
}

/**
 * Sets the `running` turns that `which` selects (a condition on `t`) to `interrupted` and adds them to the daily
 * rollups in the same statement, as closing a turn does; returns how many. The update re-checks
 * `status = 'running'` on the locked row, so two callers never count a turn twice.
 */
async function markInterrupted(db: Pick<Database, "execute">, which: SQL): Promise<number> {
  const result = await db.execute(sql`
    with swept as (
      update sys_agent_turn t
      set status = 'interrupted', error_class = 'interrupted', error_message = ${INTERRUPTED_MESSAGE}
      where t.status = 'running' and (${which})
      returning t.*
    ), rollup as (
      insert into usage_daily (${ROLLUP_COLUMNS})
      select ${LEDGER_ROLLUP_SELECT} from swept where ${IN_ROLLUP}
      group by ${ROLLUP_GROUP} order by ${ROLLUP_GROUP}
      ${ROLLUP_UPSERT}
    )
    select count(*)::int as n from swept`);
  const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as { n: number }[];
  return Number(rows[0]?.n ?? 0);
}

/**
 * For the recorder closing a turn: when a sweep marked this turn `interrupted` while its process was in fact
 * alive (its heartbeat stalled), takes the sweep's rollup line back, so the closing line that follows is the
 * only one. Runs inside the closing transaction. It locks the row first, whatever its status: a sweep that
 * commits between this check and the closing update would otherwise leave its line counted beside the closing one.
 */
export async function undoSweptRollup(
  tx: Pick<Database, "execute">,
  turn: { tenantId: string; turnId: string },
): Promise<void> {
  await tx.execute(
    sql`select 1 from sys_agent_turn where id = ${turn.turnId} and tenant_id = ${turn.tenantId} for update`,
  );
  await tx.execute(sql`
    update usage_daily u set ${rollupSet((c) => `u.${c} - s.${c}`)}
    from (
      select ${LEDGER_ROLLUP_SELECT} from sys_agent_turn
      where id = ${turn.turnId} and tenant_id = ${turn.tenantId} and status = 'interrupted'
        and error_class = 'interrupted' and ${IN_ROLLUP}
      group by ${ROLLUP_GROUP}
    ) s
    where (u.tenant_id, u.day, u.user_id, u.source, u.served_adapter, u.served_model)
      = (s.tenant_id, s.day, s.user_id, s.source, s.served_adapter, s.served_model)`);
}
