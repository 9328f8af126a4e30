import "server-only";
import { and, eq } from "drizzle-orm";
import type { Database } from "@/db";
import { appUser, type MembershipRole, membership, tenant } from "@/db/schema";
import type { RunOutcome } from "./schedule-runs";
import { resolveTarget, type ScheduleResultDelivery } from "./schedule-targets";
import { type ClaimedSchedule, claimDueSchedules, finishScheduleRun } from "./schedules";
import type { AgentService } from "./service";

export type SchedulerLog = {
  info(message: string): void;
  error(message: string, error?: unknown): void;
};

export type SchedulerDeps = {
  db: () => Promise<Database>;
  agent: AgentService;
  /** The schedule owner's role in the tenant now; null: not a member any more (or disabled). */
  roleOf?(tenantId: string, userId: string): Promise<MembershipRole | null>;
  now?: () => Date;
  /** How often to look for due schedules (default 15 s). */
  intervalMs?: number;
  /** How long a claimed schedule stays claimed if this instance dies mid-run (default 5 min, above the run limit). */
  leaseMs?: number;
  /** Each run is aborted after this long (default 2 min). */
  runTimeoutMs?: number;
  /** Schedules claimed per tick, run at the same time (default 10). */
  batchSize?: number;
  log?: SchedulerLog;
  /** Queues a run's answer for its alert channel target (features/alerts' durable deliveries); unset: refused. */
  deliver?: ScheduleResultDelivery;
};

export const OWNER_REMOVED = "owner removed";

const consoleLog: SchedulerLog = {
  info: (message) => console.info(`[scheduler] ${message}`),
  error: (message, error) =>
    console.error(`[scheduler] ${message}`, error instanceof Error ? error.message : (error ?? "")),
};

/** The user's role in the tenant, null when the membership is gone, or the user or the tenant is disabled. */
export function membershipRoleOf(db: () => Promise<Database>) {
  return async (tenantId: string, userId: string): Promise<MembershipRole | null> => {
    const [row] = await (await db())
      .select({ role: membership.role })
      .from(membership)
      .innerJoin(appUser, eq(appUser.id, membership.userId))
      .innerJoin(tenant, eq(tenant.id, membership.tenantId))
      .where(
        and(
          eq(membership.tenantId, tenantId),
          eq(membership.userId, userId),
          eq(appUser.disabled, false),
          eq(tenant.disabled, false),
        ),
      )
      .limit(1);
    return row?.role ?? null;
  };
}

/**
 * Fires due clock schedules as agent turns. Every app instance may run one: schedules are claimed in the
 * database with a lease, so each due run happens on one instance, and next_run_at lives in the database, so
 * schedules keep firing after a restart.
 */
export class Scheduler {
  private readonly now: () => Date;
  private readonly roleOf: (tenantId: string, userId: string) => Promise<MembershipRole | null>;
  private readonly log: SchedulerLog;
  private timer: NodeJS.Timeout | undefined;
  private current: Promise<number> | undefined;

  constructor(private readonly deps: SchedulerDeps) {
    this.now = deps.now ?? (() => new Date());
    this.roleOf = deps.roleOf ?? membershipRoleOf(deps.db);
    this.log = deps.log ?? consoleLog;
  }

  /** Ticks now and every intervalMs until stop(); the timer never keeps the process alive. */
  start(): void {
    if (this.timer) return;
    const tick = () => {
      // A slow tick is not overlapped by the next one; that one just waits for the following interval.
      if (!this.current) this.tick().catch((error) => this.log.error("tick failed", error));
    };
    this.timer = setInterval(tick, this.deps.intervalMs ?? 15_000);
    this.timer.unref();
    // What fell due while no process led (a restart, a new leader) runs at once.
    tick();
  }

  /** Stops ticking; resolves once the tick in flight (if any) has finished its runs. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.current?.catch(() => undefined);
  }

  /** Claims the due schedules and runs them; returns how many ran as agent turns. Calls are serialised. */
  tick(): Promise<number> {
    const previous = this.current ?? Promise.resolve(0);
    const run: Promise<number> = previous
      .catch(() => 0)
      .then(() => this.runDue())
      .finally(() => {
        if (this.current === run) this.current = undefined;
      });
    this.current = run;
    return run;
  }

  private async runDue(): Promise<number> {
    const db = await this.deps.db();
    const claimed = await claimDueSchedules(db, {
      now: this.now(),
      limit: this.deps.batchSize ?? 10,
      leaseMs: this.deps.leaseMs ?? 5 * 60_000,
    });
    const ran = await Promise.all(claimed.map((s) => this.runOne(db, s)));
    return ran.filter(Boolean).length;
  }

  /**
   * One schedule as one agent turn, in its own conversation or its target conversation; its answer is also
   * queued for its alert channel target. Never throws, always clears the lease and closes the run's log row.
   */
  private async runOne(db: Database, schedule: ClaimedSchedule): Promise<boolean> {
    const at = this.now();
    // The run's log row, ended now (lastRunAt stays the run's start, as before the log existed).
    const logged = (status: RunOutcome["status"], more: Partial<RunOutcome> = {}): RunOutcome => ({
      runId: schedule.runId,
      tenantId: schedule.tenantId,
      status,
      at: this.now(),
      ...more,
    });
    let role: MembershipRole | null;
    try {
      role = await this.roleOf(schedule.tenantId, schedule.userId);
    } catch (error) {
      this.log.error(`schedule ${schedule.id}: cannot look up its owner`, error);
      const log = logged("failed", { error: "cannot look up the schedule's owner" });
      await this.finish(db, { id: schedule.id, status: "failed", at, log });
      return false;
    }
    if (!role) {
      this.log.info(
        `schedule ${schedule.id} disabled: its owner is no longer an active member of the tenant`,
      );
      const log = logged("skipped", { error: "its owner is no longer an active member of the tenant" });
      await this.finish(db, { id: schedule.id, status: OWNER_REMOVED, at, disable: true, log });
      return false;
    }
    let where: { conversationId: string; channelId: string | null };
    try {
      // Proved again at every run: the target conversation may be gone, the channel disabled, the owner demoted.
      where = await resolveTarget(db, { ...schedule, role }, schedule.target);
      if (where.channelId && !this.deps.deliver)
        throw new Error("alert channel delivery is not available in this process");
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.log.info(`schedule ${schedule.id} not run: ${reason}`);
      await this.finish(db, {
        id: schedule.id,
        status: "failed",
        at,
        log: logged("failed", { error: reason }),
      });
      return false;
    }
    const limitMs = this.deps.runTimeoutMs ?? 120_000;
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new Error(`schedule run exceeded ${limitMs} ms`)),
      limitMs,
    );
    timer.unref();
    let status = "failed";
    let turnId: string | null = null;
    let answer = "";
    let error: string | null = null;
    try {
      const events = this.deps.agent.send(
        {
          tenantId: schedule.tenantId,
          userId: schedule.userId,
          role,
          conversationId: where.conversationId,
        },
        { message: schedule.message, model: schedule.model ?? undefined, source: "schedule" },
        controller.signal,
      );
      for await (const event of events) {
        if (event.type === "turn") turnId = event.turnId;
        // The answer is the last round's text: text said before a tool call belongs to that round.
        else if (event.type === "text") answer += event.delta;
        else if (event.type === "tool_call") answer = "";
        else if (event.type === "error") error = event.message;
        else if (event.type === "done") status = event.summary.status;
      }
      // A turn stopped by our own time limit is recorded as such, not as a user's Stop.
      if (status === "stopped" && controller.signal.aborted) status = "timeout";
    } catch (thrown) {
      this.log.error(`schedule ${schedule.id}: the run failed`, thrown);
      status = "failed";
      error = thrown instanceof Error ? thrown.message : String(thrown);
    } finally {
      clearTimeout(timer);
    }
    const succeeded = status === "success";
    // An error event of a turn that still ended well (none expected) is not the run's error.
    error = succeeded ? null : (error ?? `the turn ended as ${status}`);
    if (succeeded && where.channelId) {
      try {
        await this.deps.deliver!({
          tenantId: schedule.tenantId,
          channelId: where.channelId,
          scheduleId: schedule.id,
          runId: schedule.runId,
          conversationId: where.conversationId,
          turnId,
          message: schedule.message,
          answer,
          at,
        });
      } catch (thrown) {
        error = `the answer could not be queued for alert channel ${where.channelId}: ${
          thrown instanceof Error ? thrown.message : String(thrown)
        }`;
        this.log.error(`schedule ${schedule.id}: ${error}`);
      }
    }
    const log = logged(succeeded && !error ? "succeeded" : "failed", {
      turnId,
      result: answer || null,
      error,
    });
    await this.finish(db, { id: schedule.id, status, at, log });
    return true;
  }

  private async finish(db: Database, run: Parameters<typeof finishScheduleRun>[1]): Promise<void> {
    try {
      await finishScheduleRun(db, run);
    } catch (error) {
      // The lease then simply expires; the schedule's next run is already set.
      this.log.error(`schedule ${run.id}: cannot record the run`, error);
    }
  }
}
