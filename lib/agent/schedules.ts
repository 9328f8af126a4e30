import "server-only";
import { Cron } from "croner";
import { and, asc, count, eq, isNull, lte, or } from "drizzle-orm";
import type { Database } from "@/db";
import { type AgentSchedule, agentSchedule, type MembershipRole } from "@/db/schema";
import { isUuid } from "@/lib/core/schema/uuid";
import { closeRun, openRun, type RunOutcome } from "./schedule-runs";
import { resolveTarget, type ScheduleTarget } from "./schedule-targets";

export type { AgentSchedule } from "@/db/schema";

/** A conversation may hold this many schedules; more is almost certainly a model looping on schedule_create. */
export const MAX_SCHEDULES_PER_CONVERSATION = 20;
export const MAX_SCHEDULE_MESSAGE = 4_000;

// Malformed ids answer "not found" instead of a Postgres uuid syntax error.

/** Throws unless `timeZone` is an IANA zone this runtime knows ("Europe/Berlin", "UTC"). */
export function assertTimeZone(timeZone: string): void {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone }).format(0);
  } catch {
    throw new Error(
      `invalid time zone "${timeZone}": use an IANA name such as "UTC", "Europe/Berlin" or "America/New_York"`,
    );
  }
}

/**
 * The first time `cron` fires strictly after `after`, in `timeZone`; null when it never fires again.
 * Throws a clear Error for an invalid expression or time zone, and for anything finer than once a minute.
 */
export function nextRun(cron: string, timeZone: string, after: Date): Date | null {
  assertTimeZone(timeZone);
  const pattern = cron.trim();
  const fields = pattern.split(/\s+/).length;
  if (!pattern.startsWith("@") && fields > 5) {
    throw new Error(
      `cron expression "${cron}" has ${fields} fields (a seconds field): schedules fire at most once a minute, so use 5 fields: minute hour day-of-month month day-of-week`,
    );
  }
  let job: Cron;
  try {
    job = new Cron(pattern, { timezone: timeZone, mode: "5-part" });
  } catch (error) {
    const reason = (error instanceof Error ? error.message : String(error)).replace(/^Cron\w*:\s*/, "");
    throw new Error(
      `invalid cron expression "${cron}": ${reason}. Use 5 fields: minute hour day-of-month month day-of-week, e.g. "0 9 * * 1-5"`,
    );
  }
  return job.nextRun(after);
}

function requireNextRun(cron: string, timeZone: string, now: Date): Date {
  const next = nextRun(cron, timeZone, now);
  if (!next) throw new Error(`cron expression "${cron}" never fires (no matching date)`);
  return next;
}

function checkMessage(message: string): string {
  const text = message.trim();
  if (!text) throw new Error("the schedule's message is empty");
  if (text.length > MAX_SCHEDULE_MESSAGE)
    throw new Error(`the schedule's message is longer than ${MAX_SCHEDULE_MESSAGE} characters`);
  return text;
}

export type NewSchedule = {
  tenantId: string;
  userId: string;
  conversationId: string;
  cron: string;
  timeZone?: string;
  message: string;
  model?: string | null;
  /** Where the runs go besides this conversation (proved the owner's here); needs `role`. */
  target?: ScheduleTarget | null;
  /** The creator's role (default member): an alert channel target needs a tenant admin. */
  role?: MembershipRole;
};

/** Adds a schedule to a conversation; its first run is the cron's next occurrence after `now`. */
export async function createSchedule(
  db: Database,
  input: NewSchedule,
  now = new Date(),
): Promise<AgentSchedule> {
  const timeZone = input.timeZone?.trim() || "UTC";
  const nextRunAt = requireNextRun(input.cron, timeZone, now);
  const message = checkMessage(input.message);
  const target = input.target ?? null;
  await resolveTarget(db, { ...input, role: input.role ?? "member" }, target);
  const [existing] = await db
    .select({ n: count() })
    .from(agentSchedule)
    .where(
      and(eq(agentSchedule.tenantId, input.tenantId), eq(agentSchedule.conversationId, input.conversationId)),
    );
  if ((existing?.n ?? 0) >= MAX_SCHEDULES_PER_CONVERSATION) {
    throw new Error(
      `this conversation already has ${MAX_SCHEDULES_PER_CONVERSATION} schedules; delete one first`,
    );
  }
  const [row] = await db
    .insert(agentSchedule)
    .values({
      tenantId: input.tenantId,
      userId: input.userId,
      conversationId: input.conversationId,
      cron: input.cron.trim(),
      timeZone,
      message,
      model: input.model ?? null,
      target,
      nextRunAt,
    })
    .returning();
  return row!;
}

/** The conversation's schedules, oldest first. */
export async function listSchedules(
  db: Database,
  scope: { tenantId: string; conversationId: string },
): Promise<AgentSchedule[]> {
  return db
    .select()
    .from(agentSchedule)
    .where(
      and(eq(agentSchedule.tenantId, scope.tenantId), eq(agentSchedule.conversationId, scope.conversationId)),
    )
    .orderBy(asc(agentSchedule.createdAt), asc(agentSchedule.id));
}

/** One schedule of this tenant's conversation; null when there is none with that id there. */
export async function getSchedule(
  db: Database,
  scope: { tenantId: string; conversationId: string; id: string },
): Promise<AgentSchedule | null> {
  if (!isUuid(scope.id)) return null;
  const [row] = await db.select().from(agentSchedule).where(scoped(scope));
  return row ?? null;
}

const scoped = (s: { tenantId: string; conversationId: string; id: string }) =>
  and(
    eq(agentSchedule.id, s.id),
    eq(agentSchedule.tenantId, s.tenantId),
    eq(agentSchedule.conversationId, s.conversationId),
  );

export type ScheduleChange = {
  tenantId: string;
  conversationId: string;
  id: string;
  cron?: string;
  timeZone?: string;
  message?: string;
  enabled?: boolean;
  /** A new target (proved the owner's like at create), or null to remove it. */
  target?: ScheduleTarget | null;
  /** Whoever changes it, with their role (a target is proved against the schedule's owner and this role). */
  role?: MembershipRole;
};

/**
 * Changes a schedule of this tenant's conversation; null when there is none with that id there. A new cron,
 * time zone or re-enabling restarts the clock from `now`, so runs missed while disabled do not fire.
 */
export async function updateSchedule(
  db: Database,
  change: ScheduleChange,
  now = new Date(),
): Promise<AgentSchedule | null> {
  if (!isUuid(change.id)) return null;
  const [current] = await db.select().from(agentSchedule).where(scoped(change));
  if (!current) return null;
  const cron = change.cron?.trim() ?? current.cron;
  const timeZone = change.timeZone?.trim() || current.timeZone;
  const enabled = change.enabled ?? current.enabled;
  const retimed = cron !== current.cron || timeZone !== current.timeZone || (enabled && !current.enabled);
  const set: Partial<typeof agentSchedule.$inferInsert> = { cron, timeZone, enabled };
  if (retimed) set.nextRunAt = requireNextRun(cron, timeZone, now);
  if (change.message !== undefined) set.message = checkMessage(change.message);
  if (change.target !== undefined) {
    await resolveTarget(db, { ...current, role: change.role ?? "member" }, change.target);
    set.target = change.target;
  }
  const [row] = await db.update(agentSchedule).set(set).where(scoped(change)).returning();
  return row ?? null;
}

/** Deletes a schedule of this tenant's conversation; false when there is none with that id there. */
export async function deleteSchedule(
  db: Database,
  target: { tenantId: string; conversationId: string; id: string },
): Promise<boolean> {
  if (!isUuid(target.id)) return false;
  const deleted = await db.delete(agentSchedule).where(scoped(target)).returning({ id: agentSchedule.id });
  return deleted.length > 0;
}

/** A claimed schedule with the run its firing opened (agent_schedule_run). */
export type ClaimedSchedule = AgentSchedule & { runId: string };

/**
 * System-level (every tenant): claims up to `limit` enabled schedules that are due at `now` and not leased
 * by another instance. Each gets a lease until now + leaseMs and its next run moved past `now`, so a
 * schedule that missed several slots (the app was down) fires once, and a run row (`running`) in the same
 * transaction. Rows locked by a concurrent claimer are skipped, so each due run goes to exactly one instance
 * and is logged once.
 */
export async function claimDueSchedules(
  db: Database,
  options: { now: Date; limit: number; leaseMs: number },
): Promise<ClaimedSchedule[]> {
  const { now, limit, leaseMs } = options;
  const leaseUntil = new Date(now.getTime() + leaseMs);
  return db.transaction(async (tx) => {
    const due = await tx
      .select()
      .from(agentSchedule)
      .where(
        and(
          eq(agentSchedule.enabled, true),
          lte(agentSchedule.nextRunAt, now),
          or(isNull(agentSchedule.leaseUntil), lte(agentSchedule.leaseUntil, now)),
        ),
      )
      .orderBy(asc(agentSchedule.nextRunAt))
      .limit(limit)
      .for("update", { skipLocked: true });
    const claimed: ClaimedSchedule[] = [];
    for (const row of due) {
      let next: Date | null;
      try {
        next = nextRun(row.cron, row.timeZone, now);
      } catch {
        // A stored expression this runtime rejects (a zone dropped from ICU) runs this once, then never again.
        next = null;
      }
      const [updated] = await tx
        .update(agentSchedule)
        .set({ leaseUntil, nextRunAt: next })
        .where(eq(agentSchedule.id, row.id))
        .returning();
      if (updated) claimed.push({ ...updated, runId: await openRun(tx, updated, now) });
    }
    return claimed;
  });
}

/**
 * System-level: ends a claimed run: clears the lease, records when and how it went (and closes its run row,
 * in the same transaction); `disable` switches it off.
 */
export async function finishScheduleRun(
  db: Database,
  run: { id: string; status: string; at?: Date; disable?: boolean; log?: RunOutcome },
): Promise<void> {
  const at = run.at ?? new Date();
  await db.transaction(async (tx) => {
    await tx
      .update(agentSchedule)
      .set({
        leaseUntil: null,
        lastRunAt: at,
        lastStatus: run.status,
        ...(run.disable ? { enabled: false } : {}),
      })
      .where(eq(agentSchedule.id, run.id));
    if (run.log) await closeRun(tx, run.log);
  });
}
