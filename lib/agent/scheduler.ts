import "server-only";
import { and, eq } from "drizzle-orm";
import type { Database } from "@/db";
import { appUser, type MembershipRole, membership, tenant } from "@/db/schema";
import { type AgentSchedule, claimDueSchedules, finishScheduleRun } from "./schedules";
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

  /** One schedule as one agent turn; never throws, always clears the lease. */
  private async runOne(db: Database, schedule: AgentSchedule): Promise<boolean> {
    const at = this.now();
    let role: MembershipRole | null;
    try {
      role = await this.roleOf(schedule.tenantId, schedule.userId);
    } catch (error) {
      this.log.error(`schedule ${schedule.id}: cannot look up its owner`, error);
      await this.finish(db, { id: schedule.id, status: "failed", at });
      return false;
    }
    if (!role) {
      this.log.info(
        `schedule ${schedule.id} disabled: its owner is no longer an active member of the tenant`,
      );
      await this.finish(db, { id: schedule.id, status: OWNER_REMOVED, at, disable: true });
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
    try {
      const events = this.deps.agent.send(
        {
          tenantId: schedule.tenantId,
          userId: schedule.userId,
          role,
          conversationId: schedule.conversationId,
        },
        { message: schedule.message, model: schedule.model ?? undefined, source: "schedule" },
        controller.signal,
      );
      for await (const event of events) {
        if (event.type === "done") status = event.summary.status;
      }
      // A turn stopped by our own time limit is recorded as such, not as a user's Stop.
      if (status === "stopped" && controller.signal.aborted) status = "timeout";
    } catch (error) {
      this.log.error(`schedule ${schedule.id}: the run failed`, error);
      status = "failed";
    } finally {
      clearTimeout(timer);
    }
    await this.finish(db, { id: schedule.id, status, at });
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
