import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { agentSchedule, agentScheduleRun, alertChannel, alertDelivery, alertEvent } from "@/db/schema";
import { AlertSender } from "@/features/alerts/server/delivery";
import { queueScheduleResult } from "@/features/alerts/server/schedule-results";
import { ToolRegistry } from "@/lib/agent/registry";
import { INTERRUPTED_RUN, listRuns, MAX_RUNS_PER_SCHEDULE } from "@/lib/agent/schedule-runs";
import { Scheduler, type SchedulerDeps, type SchedulerLog } from "@/lib/agent/scheduler";
import { claimDueSchedules, createSchedule } from "@/lib/agent/schedules";
import { type AgentContext, AgentService, type SendRequest } from "@/lib/agent/service";
import type { ToolContext } from "@/lib/agent/tool";
import { ClockToolSet } from "@/lib/agent/toolsets/clock";
import { parseAllowList } from "@/lib/agent/toolsets/web/net-guard";
import { configFromEnvironment } from "@/lib/gateway/config";
import { Gateway } from "@/lib/gateway/gateway";
import { createConversation } from "@/lib/governance/conversations";
import { InMemoryConversationStore } from "@/lib/turns/conversation";
import type { AgentEvent } from "@/lib/turns/events";
import { receiver, verifySignature } from "../helpers/alert-receivers";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";

const SECRET = "whsec_0123456789abcdef";

type RunView = { status: string; result: string | null; error: string | null; turnId: string | null };

const quietLog = (): SchedulerLog & { lines: string[] } => {
  const lines: string[] = [];
  return { lines, info: (m) => lines.push(m), error: (m) => lines.push(m) };
};

/** The offline demo model's agent; a message "explode" throws mid-turn. */
class ScriptedAgent extends AgentService {
  override async *send(
    ctx: AgentContext,
    request: SendRequest,
    signal: AbortSignal,
  ): AsyncGenerator<AgentEvent> {
    if (request.message === "explode") throw new Error("boom");
    yield* super.send(ctx, request, signal);
  }
}

describe.each(testDbKinds)("schedule_get, schedule_log and schedule targets on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let acme: string;
  let globex: string;
  let max: string;
  let ada: string;
  let gus: string;
  let clock: ClockToolSet;

  const call = async (name: string, args: Record<string, unknown>, ctx: ToolContext) => {
    const tool = clock.tools().find((t) => t.name === name)!;
    return (await tool.execute(tool.parameters.parse(args), ctx)) as Record<string, unknown>;
  };
  const ctxFor = (
    tenantId: string,
    userId: string,
    conversationId: string,
    role: "member" | "admin" = "member",
  ): ToolContext => ({
    tenantId,
    userId,
    role,
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
  const conversationOf = async (tenantId: string, userId: string) =>
    (await createConversation(app.db, { tenantId, userId })).id;
  /** A scheduler over the offline model whose clock the test moves. */
  const scheduler = (at: { now: Date }, extra: Partial<SchedulerDeps> = {}) => {
    const store = new InMemoryConversationStore();
    const gateway = new Gateway(configFromEnvironment({ OFFLINE_CHUNK_DELAY_MS: "0" }));
    const agent = new ScriptedAgent({ gateway, registry: new ToolRegistry(), store });
    const log = quietLog();
    return {
      store,
      log,
      scheduler: new Scheduler({ db: async () => app.db, agent, now: () => at.now, log, ...extra }),
    };
  };

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    acme = await app.tenantId("acme");
    globex = await app.tenantId("globex");
    max = await app.userId("member@acme.test");
    ada = await app.userId("admin@acme.test");
    gus = await app.userId("member@globex.test");
    clock = new ClockToolSet(async () => app.db);
  });
  afterAll(async () => {
    await app.close();
  });
  // Claims read every tenant's due rows, so each test starts from an empty table (runs go with their schedule).
  beforeEach(async () => {
    await app.db.delete(agentSchedule);
  });

  it("schedule_get answers one schedule of this conversation in full, and not another's", async () => {
    const ctx = ctxFor(acme, max, randomUUID());
    const { id } = (
      await call(
        "schedule_create",
        { cron: "0 9 * * 1-5", message: "Open orders?", timeZone: "Europe/Berlin" },
        ctx,
      )
    ).schedule as { id: string };
    const got = (await call("schedule_get", { id }, ctx)).schedule;
    expect(got).toMatchObject({
      id,
      cron: "0 9 * * 1-5",
      timeZone: "Europe/Berlin",
      message: "Open orders?",
      model: null,
      enabled: true,
      lastRunAt: null,
      lastStatus: null,
      target: null,
    });
    expect((got as { nextRunAt: string }).nextRunAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    await expect(call("schedule_get", { id }, ctxFor(acme, max, randomUUID()))).rejects.toThrow(
      /no schedule .* in this conversation/,
    );
    await expect(call("schedule_get", { id }, ctxFor(globex, gus, ctx.conversationId))).rejects.toThrow(
      /no schedule/,
    );
    await expect(call("schedule_get", { id: "nope" }, ctx)).rejects.toThrow(/no schedule nope/);
  });

  it("schedule_log lists three runs newest first with their answers, and a failed run as failed", async () => {
    const conversationId = await conversationOf(acme, max);
    const t0 = new Date("2030-05-01T08:30:00Z");
    const s = await createSchedule(
      app.db,
      { tenantId: acme, userId: max, conversationId, cron: "0 * * * *", message: "What time is it?" },
      t0,
    );
    const at = { now: t0 };
    const { scheduler: a } = scheduler(at);
    for (const hour of ["09", "10", "11"]) {
      at.now = new Date(`2030-05-01T${hour}:00:05Z`);
      expect(await a.tick()).toBe(1);
    }
    const ctx = ctxFor(acme, max, conversationId);
    const log = (await call("schedule_log", { id: s.id }, ctx)) as {
      id: string;
      runs: (RunView & { startedAt: string })[];
    };
    expect(log.id).toBe(s.id);
    expect(log.runs.map((r) => r.startedAt)).toEqual([
      "2030-05-01T11:00:05.000Z",
      "2030-05-01T10:00:05.000Z",
      "2030-05-01T09:00:05.000Z",
    ]);
    for (const run of log.runs) {
      expect(run).toMatchObject({ status: "succeeded", error: null });
      expect(run.result).toMatch(/offline demo model/);
      expect(run.turnId).toMatch(/^[0-9a-f-]{36}$/);
    }
    expect(((await call("schedule_log", { id: s.id, limit: 1 }, ctx)).runs as unknown[]).length).toBe(1);
    expect((await call("schedule_get", { id: s.id }, ctx)).schedule).toMatchObject({
      lastStatus: "success",
      lastRunAt: "2030-05-01T11:00:05.000Z",
    });

    // A run that throws is logged failed, with its error.
    await app.db.update(agentSchedule).set({ message: "explode" }).where(eq(agentSchedule.id, s.id));
    at.now = new Date("2030-05-01T12:00:05Z");
    expect(await a.tick()).toBe(1);
    const [failed] = (await call("schedule_log", { id: s.id, limit: 1 }, ctx)).runs as RunView[];
    expect(failed).toMatchObject({ status: "failed", error: "boom", result: null });
  });

  it("a run left running by a dead process is closed as failed, by the next claim or when its log is read", async () => {
    const s = await createSchedule(
      app.db,
      { tenantId: acme, userId: max, conversationId: randomUUID(), cron: "0 * * * *", message: "hourly" },
      new Date("2030-06-01T08:30:00Z"),
    );
    // The claiming process dies: its run stays `running` under a 1 s lease.
    await claimDueSchedules(app.db, { now: new Date("2030-06-01T09:00:00Z"), limit: 10, leaseMs: 1_000 });
    const claimed = await claimDueSchedules(app.db, {
      now: new Date("2030-06-01T10:00:00Z"),
      limit: 10,
      leaseMs: 1_000,
    });
    expect(claimed.map((c) => c.id)).toEqual([s.id]);
    const runs = await listRuns(
      app.db,
      { tenantId: acme, scheduleId: s.id, limit: 10 },
      new Date("2030-06-01T10:00:00.5Z"),
    );
    expect(runs.map((r) => [r.status, r.error])).toEqual([
      ["running", null],
      ["failed", INTERRUPTED_RUN],
    ]);
    // Nobody claims it again for a while (paused): reading the log once the lease lapsed closes it.
    await app.db.update(agentSchedule).set({ enabled: false }).where(eq(agentSchedule.id, s.id));
    const later = await listRuns(
      app.db,
      { tenantId: acme, scheduleId: s.id, limit: 10 },
      new Date("2030-06-01T10:00:02Z"),
    );
    expect(later.map((r) => r.status)).toEqual(["failed", "failed"]);
    // Another tenant reads nothing of it.
    expect(await listRuns(app.db, { tenantId: globex, scheduleId: s.id, limit: 10 })).toEqual([]);
  });

  it("logs one run per firing however many replicas claim at once", async () => {
    const t0 = new Date("2030-09-01T08:00:00Z");
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push(
        (
          await createSchedule(
            app.db,
            {
              tenantId: acme,
              userId: max,
              conversationId: randomUUID(),
              cron: "0 9 * * *",
              message: `m${i}`,
            },
            t0,
          )
        ).id,
      );
    const second = await app.secondPool();
    const due = new Date("2030-09-01T09:00:01Z");
    const claims = await Promise.all(
      [app.db, second, app.db, second].map((db) =>
        claimDueSchedules(db, { now: due, limit: 10, leaseMs: 60_000 }),
      ),
    );
    const claimed = claims.flat();
    expect(claimed.map((c) => c.id).sort()).toEqual([...ids].sort());
    const runs = await app.db.select().from(agentScheduleRun);
    expect(runs.map((r) => r.scheduleId).sort()).toEqual([...ids].sort());
    expect(new Set(runs.map((r) => r.id))).toEqual(new Set(claimed.map((c) => c.runId)));
  });

  it(`keeps the last ${MAX_RUNS_PER_SCHEDULE} runs of a schedule`, async () => {
    const s = await createSchedule(
      app.db,
      { tenantId: acme, userId: max, conversationId: randomUUID(), cron: "0 * * * *", message: "hourly" },
      new Date("2030-07-01T00:30:00Z"),
    );
    const old = Array.from({ length: MAX_RUNS_PER_SCHEDULE + 5 }, (_, i) => ({
      tenantId: acme,
      scheduleId: s.id,
      status: "succeeded" as const,
      startedAt: new Date(Date.UTC(2030, 5, 1) + i * 60_000),
      finishedAt: new Date(Date.UTC(2030, 5, 1) + i * 60_000 + 1_000),
    }));
    await app.db.insert(agentScheduleRun).values(old);
    await claimDueSchedules(app.db, { now: new Date("2030-07-01T01:00:00Z"), limit: 10, leaseMs: 60_000 });
    const kept = await app.db.select().from(agentScheduleRun).where(eq(agentScheduleRun.scheduleId, s.id));
    expect(kept).toHaveLength(MAX_RUNS_PER_SCHEDULE);
    expect(kept.filter((r) => r.status === "running")).toHaveLength(1);
    const oldest = Math.min(...kept.map((r) => r.startedAt.getTime()));
    expect(oldest).toBe(old[6]!.startedAt.getTime());
  });

  it("runs in another conversation of the same user, and refuses another user's or tenant's at create", async () => {
    const home = await conversationOf(acme, max);
    const other = await conversationOf(acme, max);
    const adas = await conversationOf(acme, ada);
    const globexOne = await conversationOf(globex, gus);
    const ctx = ctxFor(acme, max, home);
    const target = (conversationId: string) => ({ type: "conversation", conversationId });
    for (const foreign of [adas, globexOne, randomUUID(), "not-a-uuid"]) {
      await expect(
        call("schedule_create", { cron: "0 9 * * *", message: "hi", target: target(foreign) }, ctx),
      ).rejects.toThrow(/is not one of your conversations in this tenant/);
    }
    await expect(
      call("schedule_create", { cron: "0 9 * * *", message: "hi", target: target(home) }, ctx),
    ).rejects.toThrow(/is this conversation/);
    expect((await call("schedule_list", {}, ctx)).schedules).toEqual([]);

    const { id } = (
      await call(
        "schedule_create",
        { cron: "0 9 * * *", message: "Morning report", target: target(other) },
        ctx,
      )
    ).schedule as { id: string };
    expect((await call("schedule_get", { id }, ctx)).schedule).toMatchObject({ target: target(other) });
    // Update proves a new target the same way, and null removes it.
    await expect(call("schedule_update", { id, target: target(adas) }, ctx)).rejects.toThrow(
      /not one of your conversations/,
    );
    expect((await call("schedule_update", { id, target: null }, ctx)).schedule).toMatchObject({
      target: null,
    });
    await call("schedule_update", { id, target: target(other) }, ctx);

    const dueAt = (await app.db.select().from(agentSchedule).where(eq(agentSchedule.id, id)))[0]!.nextRunAt!;
    const { scheduler: s, store } = scheduler({ now: new Date(dueAt.getTime() + 5_000) });
    expect(await s.tick()).toBe(1);
    expect(store.messages.get(`${acme}/${home}`)).toBeUndefined();
    const there = store.messages.get(`${acme}/${other}`) ?? [];
    expect(there.map((m) => [m.role, m.role === "user" ? m.content : ""])).toEqual([
      ["user", "Morning report"],
      ["assistant", ""],
    ]);
    const [run] = (await call("schedule_log", { id }, ctx)).runs as RunView[];
    expect(run).toMatchObject({ status: "succeeded", turnId: there[0]!.turnId });
  });

  it("refuses at run time a target that stopped being the owner's: no turn, the run logged failed", async () => {
    const home = await conversationOf(acme, max);
    const at = { now: new Date("2030-08-01T08:00:00Z") };
    const make = async (target: typeof agentSchedule.$inferInsert.target) => {
      const s = await createSchedule(
        app.db,
        { tenantId: acme, userId: max, conversationId: home, cron: "0 9 * * *", message: "sneaky" },
        at.now,
      );
      // Written past the tools' check, as a conversation deleted or a row changed by hand would leave it.
      await app.db.update(agentSchedule).set({ target }).where(eq(agentSchedule.id, s.id));
      return s.id;
    };
    const otherUser = await make({ type: "conversation", conversationId: await conversationOf(acme, ada) });
    const otherTenant = await make({
      type: "conversation",
      conversationId: await conversationOf(globex, gus),
    });
    // A member's schedule cannot post to an alert channel, even one of the tenant.
    const [channel] = await app.db
      .insert(alertChannel)
      .values({
        tenantId: acme,
        name: "ops hook",
        kind: "webhook",
        config: { url: "http://127.0.0.1:9/x", secret: SECRET },
      })
      .returning();
    const memberChannel = await make({ type: "alert_channel", channelId: channel!.id });
    at.now = new Date("2030-08-01T09:00:05Z");
    const { scheduler: s, store } = scheduler(at);
    expect(await s.tick()).toBe(0);
    expect(store.messages.size).toBe(0);
    const runOf = async (id: string) =>
      (await app.db.select().from(agentScheduleRun).where(eq(agentScheduleRun.scheduleId, id)))[0]!;
    for (const id of [otherUser, otherTenant]) {
      expect(await runOf(id)).toMatchObject({ status: "failed", turnId: null });
      expect((await runOf(id)).error).toMatch(/is not one of your conversations in this tenant/);
    }
    expect((await runOf(memberChannel)).error).toMatch(/only a tenant admin/);
    const [row] = await app.db.select().from(agentSchedule).where(eq(agentSchedule.id, otherUser));
    expect(row).toMatchObject({ lastStatus: "failed", leaseUntil: null, enabled: true });
  });

  it("sends each answer to an alert channel target as a signed schedule_result delivery", async () => {
    const hook = await receiver(() => 200);
    const sender = new AlertSender({
      db: async () => app.db,
      transports: { allow: parseAllowList("127.0.0.0/8"), from: "Tollgate <alerts@test.local>" },
      pollMs: 50,
    });
    try {
      const [channel] = await app.db
        .insert(alertChannel)
        .values({
          tenantId: acme,
          name: "reports",
          kind: "webhook",
          config: { url: hook.url, secret: SECRET },
        })
        .returning();
      const [globexChannel] = await app.db
        .insert(alertChannel)
        .values({
          tenantId: globex,
          name: "theirs",
          kind: "webhook",
          config: { url: hook.url, secret: SECRET },
        })
        .returning();
      const home = await conversationOf(acme, ada);
      const admin = ctxFor(acme, ada, home, "admin");
      // An admin finds the channel's id with schedule_channels: the tenant's own only, and no secrets.
      const listed = (await call("schedule_channels", {}, admin)).channels as Record<string, unknown>[];
      expect(listed).toContainEqual({ id: channel!.id, name: "reports", kind: "webhook" });
      expect(listed.map((c) => c.id)).not.toContain(globexChannel!.id);
      expect(clock.tools().find((t) => t.name === "schedule_channels")!.roles).toEqual(["admin"]);
      const target = (channelId: string) => ({ type: "alert_channel", channelId });
      await expect(
        call(
          "schedule_create",
          { cron: "0 9 * * *", message: "x", target: target(globexChannel!.id) },
          admin,
        ),
      ).rejects.toThrow(/is not a channel of this tenant/);
      await expect(
        call(
          "schedule_create",
          { cron: "0 9 * * *", message: "x", target: target(channel!.id) },
          ctxFor(acme, max, await conversationOf(acme, max)),
        ),
      ).rejects.toThrow(/only a tenant admin/);
      const { id } = (
        await call(
          "schedule_create",
          { cron: "0 9 * * *", message: "Daily digest", target: target(channel!.id) },
          admin,
        )
      ).schedule as { id: string };

      const dueAt = (await app.db.select().from(agentSchedule).where(eq(agentSchedule.id, id)))[0]!
        .nextRunAt!;
      const { scheduler: s, store } = scheduler(
        { now: new Date(dueAt.getTime() + 5_000) },
        { deliver: async (result) => void (await queueScheduleResult(app.db, result)) },
      );
      expect(await s.tick()).toBe(1);
      // The answer is in the schedule's own conversation as usual, and on its way to the channel.
      const mine = store.messages.get(`${acme}/${home}`) ?? [];
      expect(mine.map((m) => m.role)).toEqual(["user", "assistant"]);
      const [run] = (await call("schedule_log", { id }, admin)).runs as (RunView & { id: string })[];
      expect(run).toMatchObject({ status: "succeeded", error: null });

      await sender.tick();
      await sender.idle();
      expect(hook.received).toHaveLength(1);
      const got = hook.received[0]!;
      expect(verifySignature(String(got.headers["x-tollgate-signature"]), got.body, SECRET)).toBe(true);
      const body = JSON.parse(got.body);
      expect(body).toMatchObject({
        type: "schedule_result",
        tenantId: acme,
        rule: null,
        test: false,
        title: "Scheduled: Daily digest",
        details: { scheduleId: id, runId: run!.id, conversationId: home, turnId: run!.turnId },
      });
      expect(body.body).toBe(mine[1]!.content);
      const [delivery] = await app.db
        .select()
        .from(alertDelivery)
        .where(and(eq(alertDelivery.channelId, channel!.id), eq(alertDelivery.tenantId, acme)));
      expect(delivery).toMatchObject({ status: "delivered", attempts: 1 });
      expect(got.headers["x-tollgate-delivery"]).toBe(delivery!.id);

      // The channel is disabled before the next run: refused at run time, no turn, logged failed.
      await app.db.update(alertChannel).set({ enabled: false }).where(eq(alertChannel.id, channel!.id));
      const next = (await app.db.select().from(agentSchedule).where(eq(agentSchedule.id, id)))[0]!.nextRunAt!;
      const again = scheduler({ now: new Date(next.getTime() + 5_000) }, { deliver: async () => {} });
      expect(await again.scheduler.tick()).toBe(0);
      const [refused] = (await call("schedule_log", { id, limit: 1 }, admin)).runs as RunView[];
      expect(refused).toMatchObject({ status: "failed" });
      expect(refused!.error).toMatch(/is disabled/);
    } finally {
      await sender.stop();
      await hook.close();
    }
  });
  it("the app's own scheduler queues an alert channel target's answer as a pending schedule_result delivery", async () => {
    const [channel] = await app.db
      .insert(alertChannel)
      .values({
        tenantId: acme,
        name: "wired",
        kind: "webhook",
        config: { url: "http://127.0.0.1:9/x", secret: SECRET },
      })
      .returning();
    const home = await conversationOf(acme, ada);
    const s = await createSchedule(
      app.db,
      {
        tenantId: acme,
        userId: ada,
        role: "admin",
        conversationId: home,
        cron: "* * * * *",
        message: "Wired?",
        target: { type: "alert_channel", channelId: channel!.id },
      },
      new Date(Date.now() - 3_600_000),
    );
    expect(await app.container.agent.scheduler.tick()).toBe(1);
    const [run] = await app.db.select().from(agentScheduleRun).where(eq(agentScheduleRun.scheduleId, s.id));
    expect(run).toMatchObject({ status: "succeeded", error: null });
    const [event] = await app.db
      .select({ dedupeKey: alertEvent.dedupeKey, status: alertDelivery.status })
      .from(alertDelivery)
      .innerJoin(alertEvent, eq(alertEvent.id, alertDelivery.eventId))
      .where(eq(alertDelivery.channelId, channel!.id));
    expect(event).toEqual({ dedupeKey: `schedule:${run!.id}`, status: "pending" });
  });
});
