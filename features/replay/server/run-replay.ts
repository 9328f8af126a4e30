import "server-only";
import { and, asc, eq, inArray } from "drizzle-orm";
import type { Database } from "@/db";
import { apiKey, appUser, sysAgentAudit, sysAgentTurn, tenant } from "@/db/schema";
import { keyJoin, ledgerFields, runSummary } from "@/features/admin-tables/server";
import type { RunReplayResponse } from "@/features/replay/contracts";
import { scoresWithAuthors } from "@/features/scores/server";
import { notFound } from "@/lib/core/errors/app-error";
import { pickFields, REPLAY_FIELDS, replayTurnOf } from "./replay";

const t = sysAgentTurn;
const a = sysAgentAudit;

/** The most calls a run replay draws; the ledger filtered by the run id lists the rest. */
export const RUN_REPLAY_CALLS = 200;

/**
 * A run: its totals (the Runs page's row) and each of its calls with its audit trail, in the order they started.
 * `tenantId` scopes every read (null only for the platform super admin, who names the run's tenant with
 * `runTenantId`); a run with no call in that tenant is not found.
 */
export async function runReplay(
  db: Database,
  q: { tenantId: string | null; runId: string; runTenantId?: string | null },
): Promise<RunReplayResponse> {
  const tenantId = q.tenantId ?? q.runTenantId ?? null;
  if (!tenantId) throw notFound("run");
  const run = await runSummary(db, { tenantId, runId: q.runId });
  if (!run) throw notFound("run");
  const rows = await db
    .select(pickFields(ledgerFields, REPLAY_FIELDS))
    .from(t)
    .leftJoin(tenant, eq(tenant.id, t.tenantId))
    .leftJoin(appUser, eq(appUser.id, t.userId))
    .leftJoin(apiKey, keyJoin)
    .where(and(eq(t.tenantId, tenantId), eq(t.runId, q.runId)))
    // Ties on the start time are broken by id (UUIDv7, time-ordered).
    .orderBy(asc(t.startedAt), asc(t.id))
    .limit(RUN_REPLAY_CALLS + 1);
  const shown = rows.slice(0, RUN_REPLAY_CALLS);
  const events = shown.length
    ? await db
        .select({ turnId: a.turnId, seq: a.seq, type: a.type, createdAt: a.createdAt, payload: a.payload })
        .from(a)
        .where(
          and(
            eq(a.tenantId, tenantId),
            inArray(
              a.turnId,
              shown.map((r) => r.id),
            ),
          ),
        )
        .orderBy(asc(a.turnId), asc(a.seq))
    : [];
  const byTurn = new Map<string, RunReplayResponse["calls"][number]["events"]>();
  for (const { turnId, ...e } of events) {
    const list = byTurn.get(turnId) ?? [];
    list.push({ ...e, createdAt: e.createdAt.toISOString() });
    byTurn.set(turnId, list);
  }
  return {
    run,
    scores: await scoresWithAuthors(db, tenantId, { runId: q.runId }),
    calls: shown.map((row) => ({
      turn: replayTurnOf(row),
      events: byTurn.get(row.id) ?? [],
    })),
    truncated: rows.length > RUN_REPLAY_CALLS,
  };
}
