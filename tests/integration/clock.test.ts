import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { agentSchedule, appUser } from "@/db/schema";
import { ToolRegistry } from "@/lib/agent/registry";
import { OWNER_REMOVED, Scheduler, type SchedulerLog } from "@/lib/agent/scheduler";
import { claimDueSchedules, createSchedule, finishScheduleRun, nextRun } from "@/lib/agent/schedules";
import { type AgentContext, AgentService, type SendRequest } from "@/lib/agent/service";
import type { ToolContext } from "@/lib/agent/tool";
import { ClockToolSet } from "@/lib/agent/toolsets/clock";
import { configFromEnvironment } from "@/lib/gateway/config";
import { Gateway } from "@/lib/gateway/gateway";
import { InMemoryConversationStore } from "@/lib/turns/conversation";
import type { AgentEvent } from "@/lib/turns/events";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";

type ScheduleView = {
  id: string;
  cron: string;
  timeZone: string;
  message: string;
  enabled: boolean;
  nextRunAt: string | null;
};

const quietLog = (): SchedulerLog & { errors: string[] } => {
  const errors: string[] = [];
  return { errors, info: () => {}, error: (message) => errors.push(message) };
};

/** An agent over the offline demo model, remembering the conversations in memory. */
function offlineAgent(db: Awaited<ReturnType<typeof useSeededAppDatabase>>["db"]) {
  const store = new InMemoryConversationStore();
  const gateway = new Gateway(configFromEnvironment({ OFFLINE_CHUNK_DELAY_MS: "0" }));
  const registry = new ToolRegistry().register(new ClockToolSet(async () => db));
  return { store, agent: new AgentService({ gateway, registry, store }) };
}

/** An agent whose turns throw for one message and hang (until aborted) for another. */
class ScriptedAgent extends AgentService {
  readonly seen: string[] = [];
  override async *send(
    ctx: AgentContext,
    request: SendRequest,
    signal: AbortSignal,
  ): AsyncGenerator<AgentEvent> {
    this.seen.push(request.message);
    if (request.message === "explode") throw new Error("boom");
    if (request.message === "hang") {
      await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
    }
    yield* super.send(ctx, request, signal);
  }
}

describe.each(testDbKinds)("the clock tool set and the scheduler on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let acme: string;
  let globex: string;
  let max: string;
  let gus: string;
  let clock: ClockToolSet;

  const call = async (name: string, args: Record<string, unknown>, ctx: ToolContext) => {
    const tool = clock.tools().find((t) => t.name === name)!;
    return (await tool.execute(tool.parameters.parse(args), ctx)) as Record<string, unknown>;
  };
  const ctxFor = (tenantId: string, userId: string, conversationId: string): ToolContext => ({
    tenantId,
    userId,
    role: "member",
    conversationId,
    turnId: randomUUID(),
    signal: new AbortController().signal,
    emit: async () => {},
    addMessage: async () => {
      throw new Error("no model reads messages here");
    },
    addUsage: () => {},
    noteUse: () => {},
  });
  const row = async (id: string) =>
    (await app.db.select().from(agentSchedule).where(eq(agentSchedule.id, id)))[0];

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    acme = await app.tenantId("acme");
    globex = await app.tenantId("globex");
    max = await app.userId("member@acme.test");
    gus = await app.userId("member@globex.test");
    clock = new ClockToolSet(async () => app.db);
  });
  afterAll(async () => {
    await app.close();
  });
  // Claims read every tenant's due rows, so each test starts from an empty table.
  beforeEach(async () => {
    await app.db.delete(agentSchedule);
  });

  it("creates, lists, updates and deletes a conversation's schedules through the tools", async () => {
    const ctx = ctxFor(acme, max, randomUUID());
    const created = await call(
      "schedule_create",
      { cron: "0 9 * * 1-5", message: "Summarise the open orders", timeZone: "Europe/Berlin" },
      ctx,
    );
    const schedule = created.schedule as ScheduleView;
    expect(schedule).toMatchObject({
      cron: "0 9 * * 1-5",
      timeZone: "Europe/Berlin",
      message: "Summarise the open orders",
      enabled: true,
    });
    expect(new Date(schedule.nextRunAt!).toISOString()).toBe(schedule.nextRunAt);
    expect(new Date(schedule.nextRunAt!).getTime()).toBeGreaterThan(Date.now());
    expect(await row(schedule.id)).toMatchObject({
      tenantId: acme,
      userId: max,
      conversationId: ctx.conversationId,
    });

    const listed = (await call("schedule_list", {}, ctx)).schedules as ScheduleView[];
    expect(listed.map((s) => s.id)).toEqual([schedule.id]);

    const paused = (await call("schedule_update", { id: schedule.id, enabled: false }, ctx))
      .schedule as ScheduleView;
    expect(paused).toMatchObject({ enabled: false, nextRunAt: null });
    const changed = (
      await call(
        "schedule_update",
        { id: schedule.id, cron: "30 7 * * *", timeZone: "UTC", message: "Good morning", enabled: true },
        ctx,
      )
    ).schedule as ScheduleView;
    expect(changed).toMatchObject({
      cron: "30 7 * * *",
      timeZone: "UTC",
      message: "Good morning",
      enabled: true,
    });
    expect(changed.nextRunAt).toBe(
      nextRun("30 7 * * *", "UTC", new Date(Date.now() - 60_000))?.toISOString(),
    );

    expect(await call("schedule_delete", { id: schedule.id }, ctx)).toEqual({
      deleted: true,
      id: schedule.id,
    });
    expect((await call("schedule_list", {}, ctx)).schedules).toEqual([]);
    await expect(call("schedule_delete", { id: schedule.id }, ctx)).rejects.toThrow(
      /no schedule .* in this conversation/,
    );
  });

  it("rejects invalid cron expressions and time zones, and anything more often than once a minute", async () => {
    const ctx = ctxFor(acme, max, randomUUID());
    await expect(call("schedule_create", { cron: "every morning", message: "hi" }, ctx)).rejects.toThrow(
      /invalid cron expression "every morning".*5 fields/,
    );
    await expect(call("schedule_create", { cron: "61 * * * *", message: "hi" }, ctx)).rejects.toThrow(
      /invalid cron expression "61 \* \* \* \*"/,
    );
    await expect(
      call("schedule_create", { cron: "0 9 * * *", timeZone: "Mars/Olympus", message: "hi" }, ctx),
    ).rejects.toThrow(/invalid time zone "Mars\/Olympus"/);
    await expect(
      call("schedule_create", { cron: "*/10 * * * * *", message: "every 10 seconds" }, ctx),
    ).rejects.toThrow(/at most once a minute/);
    await expect(call("schedule_create", { cron: "0 0 30 2 *", message: "never" }, ctx)).rejects.toThrow(
      /never fires/,
    );
    const created = (
      await call("schedule_create", { cron: "* * * * *", message: "every minute is allowed" }, ctx)
    ).schedule as ScheduleView;
    await expect(call("schedule_update", { id: created.id, cron: "* * * * * *" }, ctx)).rejects.toThrow(
      /at most once a minute/,
    );
    expect((await call("schedule_list", {}, ctx)).schedules).toHaveLength(1);
    // Unknown or malformed ids answer "not found", never a database error.
    await expect(call("schedule_update", { id: "not-a-uuid", enabled: false }, ctx)).rejects.toThrow(
      /no schedule not-a-uuid/,
    );
  });

  it("keeps each tenant's and each conversation's schedules to itself", async () => {
    const conversationId = randomUUID();
    const owner = ctxFor(acme, max, conversationId);
    const { id } = (await call("schedule_create", { cron: "0 9 * * *", message: "Acme only" }, owner))
      .schedule as ScheduleView;
    // Tenant B, even with the same conversation id, sees nothing and can change nothing.
    const intruder = ctxFor(globex, gus, conversationId);
    expect((await call("schedule_list", {}, intruder)).schedules).toEqual([]);
    await expect(call("schedule_update", { id, message: "pwned" }, intruder)).rejects.toThrow(/no schedule/);
    await expect(call("schedule_delete", { id }, intruder)).rejects.toThrow(/no schedule/);
    // Another conversation of the same tenant neither.
    const elsewhere = ctxFor(acme, max, randomUUID());
    expect((await call("schedule_list", {}, elsewhere)).schedules).toEqual([]);
    await expect(call("schedule_delete", { id }, elsewhere)).rejects.toThrow(/no schedule/);
    expect(await row(id)).toMatchObject({ message: "Acme only", enabled: true });
  });

  it("claims a due schedule once, however many claims run at the same time", async () => {
    const t0 = new Date("2030-01-01T08:00:00Z");
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const s = await createSchedule(
        app.db,
        { tenantId: acme, userId: max, conversationId: randomUUID(), cron: "0 9 * * *", message: `m${i}` },
        t0,
      );
      ids.push(s.id);
    }
    expect(await claimDueSchedules(app.db, { now: t0, limit: 10, leaseMs: 60_000 })).toEqual([]);
    const due = new Date("2030-01-01T09:00:10Z");
    const claims = await Promise.all(
      [1, 2, 3, 4].map(() => claimDueSchedules(app.db, { now: due, limit: 10, leaseMs: 60_000 })),
    );
    const claimed = claims.flat().map((s) => s.id);
    expect(claimed.sort()).toEqual([...ids].sort());
    const first = claims.flat()[0]!;
    expect(first.leaseUntil?.toISOString()).toBe("2030-01-01T09:01:10.000Z");
    expect(first.nextRunAt?.toISOString()).toBe("2030-01-02T09:00:00.000Z");
    // Claimed again neither while leased nor once the lease has lapsed before the next slot.
    expect(await claimDueSchedules(app.db, { now: due, limit: 10, leaseMs: 60_000 })).toEqual([]);
    expect(
      await claimDueSchedules(app.db, { now: new Date("2030-01-01T12:00:00Z"), limit: 10, leaseMs: 60_000 }),
    ).toEqual([]);
    // A live lease holds back the next slot too (a run still going on), until it is finished.
    const nextDay = new Date("2030-01-02T09:00:30Z");
    await app.db
      .update(agentSchedule)
      .set({ leaseUntil: new Date("2030-01-02T09:05:00Z") })
      .where(eq(agentSchedule.id, ids[0]!));
    const again = await claimDueSchedules(app.db, { now: nextDay, limit: 10, leaseMs: 60_000 });
    expect(again.map((s) => s.id)).not.toContain(ids[0]);
    expect(again).toHaveLength(4);
    await finishScheduleRun(app.db, { id: ids[0]!, status: "success", at: nextDay });
    expect(
      (await claimDueSchedules(app.db, { now: nextDay, limit: 10, leaseMs: 60_000 })).map((s) => s.id),
    ).toEqual([ids[0]]);
  });

  it("fires a schedule that missed several slots once, then on its next slot", async () => {
    const t0 = new Date("2030-03-01T10:30:00Z");
    const s = await createSchedule(
      app.db,
      { tenantId: acme, userId: max, conversationId: randomUUID(), cron: "0 * * * *", message: "hourly" },
      t0,
    );
    expect(s.nextRunAt?.toISOString()).toBe("2030-03-01T11:00:00.000Z");
    const late = new Date("2030-03-01T16:20:00Z"); // six hourly slots missed
    const claimed = await claimDueSchedules(app.db, { now: late, limit: 10, leaseMs: 1_000 });
    expect(claimed).toHaveLength(1);
    expect(claimed[0]!.nextRunAt?.toISOString()).toBe("2030-03-01T17:00:00.000Z");
    await finishScheduleRun(app.db, { id: s.id, status: "success", at: late });
    expect(await claimDueSchedules(app.db, { now: late, limit: 10, leaseMs: 1_000 })).toEqual([]);
    expect(
      await claimDueSchedules(app.db, { now: new Date("2030-03-01T17:00:00Z"), limit: 10, leaseMs: 1_000 }),
    ).toHaveLength(1);
  });

  it("fires a schedule after a restart: a new scheduler over the same database runs it once", async () => {
    const conversationId = randomUUID();
    const ctx = ctxFor(acme, max, conversationId);
    const { id } = (
      await call("schedule_create", { cron: "0 9 * * *", message: "Summarise the open orders" }, ctx)
    ).schedule as ScheduleView;
    const dueAt = (await row(id))!.nextRunAt!;

    const first = offlineAgent(app.db);
    const a = new Scheduler({
      db: async () => app.db,
      agent: first.agent,
      now: () => new Date(dueAt.getTime() - 60_000),
      log: quietLog(),
    });
    a.start();
    expect(await a.tick()).toBe(0);
    await a.stop();
    expect(first.store.messages.size).toBe(0);

    // The restart: a new process, a new scheduler and agent, the same database.
    const second = offlineAgent(app.db);
    const later = new Date(dueAt.getTime() + 90_000);
    const b = new Scheduler({
      db: async () => app.db,
      agent: second.agent,
      now: () => later,
      log: quietLog(),
    });
    expect(await b.tick()).toBe(1);
    const stored = second.store.messages.get(`${acme}/${conversationId}`) ?? [];
    expect(stored.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(stored[0]!.content).toBe("Summarise the open orders");
    expect(stored[1]!.content).toMatch(/offline demo model/);
    const after = await row(id);
    expect(after).toMatchObject({ lastStatus: "success", leaseUntil: null, enabled: true });
    expect(after!.lastRunAt?.toISOString()).toBe(later.toISOString());
    expect(after!.nextRunAt?.getTime()).toBe(dueAt.getTime() + 24 * 3600_000);

    expect(await b.tick()).toBe(0);
    expect(second.store.messages.get(`${acme}/${conversationId}`)).toHaveLength(2);
  });

  it("disables the schedule of an owner who is no longer an active member instead of running it", async () => {
    const t0 = new Date("2030-01-01T08:00:00Z");
    const s = await createSchedule(
      app.db,
      {
        tenantId: acme,
        userId: max,
        conversationId: randomUUID(),
        cron: "0 9 * * *",
        message: "still here?",
      },
      t0,
    );
    const { agent, store } = offlineAgent(app.db);
    await app.db.update(appUser).set({ disabled: true }).where(eq(appUser.id, max));
    try {
      const scheduler = new Scheduler({
        db: async () => app.db,
        agent,
        now: () => new Date("2030-01-01T09:00:05Z"),
        log: quietLog(),
      });
      expect(await scheduler.tick()).toBe(0);
    } finally {
      await app.db.update(appUser).set({ disabled: false }).where(eq(appUser.id, max));
    }
    expect(store.messages.size).toBe(0);
    expect(await row(s.id)).toMatchObject({ enabled: false, lastStatus: OWNER_REMOVED, leaseUntil: null });
  });

  it("keeps going when a run fails, and cuts off a run that exceeds its time limit", async () => {
    const t0 = new Date("2030-01-01T08:00:00Z");
    const make = (message: string) =>
      createSchedule(
        app.db,
        { tenantId: acme, userId: max, conversationId: randomUUID(), cron: "0 9 * * *", message },
        t0,
      );
    const [bad, slow, good] = [await make("explode"), await make("hang"), await make("hello there")];
    const store = new InMemoryConversationStore();
    const gateway = new Gateway(configFromEnvironment({ OFFLINE_CHUNK_DELAY_MS: "0" }));
    const agent = new ScriptedAgent({ gateway, registry: new ToolRegistry(), store });
    const log = quietLog();
    const scheduler = new Scheduler({
      db: async () => app.db,
      agent,
      roleOf: async () => "member",
      now: () => new Date("2030-01-01T09:00:00Z"),
      runTimeoutMs: 200,
      log,
    });
    expect(await scheduler.tick()).toBe(3);
    expect(agent.seen.sort()).toEqual(["explode", "hang", "hello there"]);
    expect(log.errors.some((e) => e.includes(bad.id))).toBe(true);
    expect(await row(bad.id)).toMatchObject({ lastStatus: "failed", leaseUntil: null });
    expect(await row(slow.id)).toMatchObject({ lastStatus: "timeout", leaseUntil: null });
    expect(await row(good.id)).toMatchObject({ lastStatus: "success", leaseUntil: null });
    expect(await scheduler.tick()).toBe(0);
  });
});
