import "server-only";
import { and, desc, eq, inArray, isNull, lte, or } from "drizzle-orm";
import type { Database, Executor } from "@/db";
import { type AgentScheduleRun, agentSchedule, agentScheduleRun, type ScheduleRunStatus } from "@/db/schema";

export type { AgentScheduleRun, ScheduleRunStatus } from "@/db/schema";

/** Runs kept per schedule: older ones are deleted when a new run starts. */
export const MAX_RUNS_PER_SCHEDULE = 100;
/** A run's stored answer and error are cut here (the answer is the turn's; the log shows less). */
export const MAX_RUN_RESULT = 2_000;
export const MAX_RUN_ERROR = 500;
/** What a run left `running` by a process that died becomes once its schedule's lease has lapsed. */
export const INTERRUPTED_RUN = "interrupted: the process running it stopped before the turn ended";

export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * Inside the claim's transaction: closes the schedule's runs a dead process left `running` (the claim proves its
 * lease lapsed, and a run never outlives its lease), opens this firing's run, and drops the runs past the newest
 * MAX_RUNS_PER_SCHEDULE. One claim, one row: the claim is exclusive, so each firing is logged once across replicas.
 */
export async function openRun(
  tx: Executor,
  schedule: { id: string; tenantId: string },
  now: Date,
): Promise<string> {
  const mine = and(
    eq(agentScheduleRun.tenantId, schedule.tenantId),
    eq(agentScheduleRun.scheduleId, schedule.id),
  );
  await tx
    .update(agentScheduleRun)
    .set({ status: "failed", error: INTERRUPTED_RUN, finishedAt: now })
    .where(and(mine, eq(agentScheduleRun.status, "running")));
  const [run] = await tx
    .insert(agentScheduleRun)
    .values({ tenantId: schedule.tenantId, scheduleId: schedule.id, status: "running", startedAt: now })
    .returning({ id: agentScheduleRun.id });
  const older = tx
    .select({ id: agentScheduleRun.id })
    .from(agentScheduleRun)
    .where(mine)
    .orderBy(desc(agentScheduleRun.startedAt), desc(agentScheduleRun.id))
    .offset(MAX_RUNS_PER_SCHEDULE);
  await tx.delete(agentScheduleRun).where(and(mine, inArray(agentScheduleRun.id, older)));
  return run!.id;
}

export type RunOutcome = {
  runId: string;
  tenantId: string;
  status: Exclude<ScheduleRunStatus, "running">;
  turnId?: string | null;
  result?: string | null;
  error?: string | null;
  at: Date;
};

/** Ends a run once (a run already closed, e.g. as interrupted by a later claim, keeps its outcome). */
export async function closeRun(tx: Executor, outcome: RunOutcome): Promise<void> {
  await tx
    .update(agentScheduleRun)
    .set({
      status: outcome.status,
      turnId: outcome.turnId ?? null,
      result: outcome.result ? clip(outcome.result, MAX_RUN_RESULT) : null,
      error: outcome.error ? clip(outcome.error, MAX_RUN_ERROR) : null,
      finishedAt: outcome.at,
    })
    .where(
      and(
        eq(agentScheduleRun.id, outcome.runId),
        eq(agentScheduleRun.tenantId, outcome.tenantId),
        eq(agentScheduleRun.status, "running"),
      ),
    );
}

/**
 * The schedule's runs, newest first. A run still `running` whose schedule holds no live lease was left by a
 * process that died: it is closed as failed here, so the log never shows a run going on that nobody runs (the
 * next claim would close it too, but a paused or monthly schedule may not be claimed for a long time).
 */
export async function listRuns(
  db: Database,
  scope: { tenantId: string; scheduleId: string; limit: number },
  now = new Date(),
): Promise<AgentScheduleRun[]> {
  const mine = and(
    eq(agentScheduleRun.tenantId, scope.tenantId),
    eq(agentScheduleRun.scheduleId, scope.scheduleId),
  );
  const unleased = db
    .select({ id: agentSchedule.id })
    .from(agentSchedule)
    .where(
      and(
        eq(agentSchedule.tenantId, scope.tenantId),
        eq(agentSchedule.id, scope.scheduleId),
        or(isNull(agentSchedule.leaseUntil), lte(agentSchedule.leaseUntil, now)),
      ),
    );
  await db
    .update(agentScheduleRun)
    .set({ status: "failed", error: INTERRUPTED_RUN, finishedAt: now })
    .where(and(mine, eq(agentScheduleRun.status, "running"), inArray(agentScheduleRun.scheduleId, unleased)));
  return db
    .select()
    .from(agentScheduleRun)
    .where(mine)
    .orderBy(desc(agentScheduleRun.startedAt), desc(agentScheduleRun.id))
    .limit(scope.limit);
}
