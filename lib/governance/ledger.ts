import "server-only";
import { and, asc, desc, eq, lt, sql } from "drizzle-orm";
import type { Database } from "@/db";
import { type SysAgentAudit, type SysAgentTurn, sysAgentAudit, sysAgentTurn } from "@/db/schema";
import { notFound } from "@/lib/core/errors";
import { HEARTBEAT_TIMEOUT_MS } from "./instance";

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
export async function sweepInterruptedTurns(db: Database, opts: SweepOptions = {}): Promise<number> {
  const cutoff = new Date((opts.now ?? new Date()).getTime() - (opts.olderThanMs ?? INTERRUPTED_AFTER_MS));
  const timeout = `${opts.heartbeatTimeoutMs ?? HEARTBEAT_TIMEOUT_MS} milliseconds`;
  const result = await db.execute(sql`
    with swept as (
      update sys_agent_turn t
      set status = 'interrupted', error_class = 'interrupted', error_message = ${INTERRUPTED_MESSAGE}
      where t.status = 'running' and (
        (t.instance_id is null and t.started_at < ${cutoff.toISOString()}::timestamptz)
        or (t.instance_id is not null and not exists (
          select 1 from instance i where i.id = t.instance_id and i.heartbeat_at > now() - ${timeout}::interval
        ) and (
          exists (select 1 from instance i where i.id = t.instance_id)
          or t.started_at < now() - ${timeout}::interval
        ))
      )
      returning t.*
    ), rollup as (
      insert into usage_daily (tenant_id, day, user_id, source, served_adapter, served_model, requests, failures,
        input_tokens, cached_input_tokens, cache_write_tokens, output_tokens, reasoning_tokens, cost, latency_ms_total)
      select tenant_id, (started_at at time zone 'UTC')::date, user_id, source, coalesce(served_adapter, 'none'),
        coalesce(served_model, requested_model), count(*), 0, sum(input_tokens), sum(cached_input_tokens),
        sum(cache_write_tokens), sum(output_tokens), sum(reasoning_tokens), coalesce(sum(cost), 0),
        coalesce(sum(latency_ms), 0)
      from swept where user_id is not null
      group by 1, 2, 3, 4, 5, 6
      order by 1, 2, 3, 4, 5, 6
      on conflict (tenant_id, day, user_id, source, served_adapter, served_model) do update set
        requests = usage_daily.requests + excluded.requests,
        failures = usage_daily.failures + excluded.failures,
        input_tokens = usage_daily.input_tokens + excluded.input_tokens,
        cached_input_tokens = usage_daily.cached_input_tokens + excluded.cached_input_tokens,
        cache_write_tokens = usage_daily.cache_write_tokens + excluded.cache_write_tokens,
        output_tokens = usage_daily.output_tokens + excluded.output_tokens,
        reasoning_tokens = usage_daily.reasoning_tokens + excluded.reasoning_tokens,
        cost = usage_daily.cost + excluded.cost,
        latency_ms_total = usage_daily.latency_ms_total + excluded.latency_ms_total
    )
    select count(*)::int as n from swept`);
  const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as { n: number }[];
  return Number(rows[0]?.n ?? 0);
}

/**
 * For the recorder closing a turn: when a sweep marked this turn `interrupted` while its process was in fact
 * alive (its heartbeat stalled), takes the sweep's rollup line back, so the closing line that follows is the
 * only one. Runs inside the closing transaction and locks the row.
 */
export async function undoSweptRollup(
  tx: Pick<Database, "execute">,
  turn: { tenantId: string; turnId: string },
): Promise<void> {
  await tx.execute(sql`
    with swept as (
      select * from sys_agent_turn
      where id = ${turn.turnId} and tenant_id = ${turn.tenantId} and status = 'interrupted'
        and error_class = 'interrupted' and user_id is not null
      for update
    )
    update usage_daily u set
      requests = u.requests - 1,
      input_tokens = u.input_tokens - s.input_tokens,
      cached_input_tokens = u.cached_input_tokens - s.cached_input_tokens,
      cache_write_tokens = u.cache_write_tokens - s.cache_write_tokens,
      output_tokens = u.output_tokens - s.output_tokens,
      reasoning_tokens = u.reasoning_tokens - s.reasoning_tokens,
      cost = u.cost - coalesce(s.cost, 0),
      latency_ms_total = u.latency_ms_total - coalesce(s.latency_ms, 0)
    from swept s
    where u.tenant_id = s.tenant_id and u.day = (s.started_at at time zone 'UTC')::date and u.user_id = s.user_id
      and u.source = s.source and u.served_adapter = coalesce(s.served_adapter, 'none')
      and u.served_model = coalesce(s.served_model, s.requested_model)`);
}
