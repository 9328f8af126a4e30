import { randomUUID } from "node:crypto";
import Big from "big.js";
import { eq, sql } from "drizzle-orm";
import fc from "fast-check";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Database } from "@/db";
import { adminChange, instance, sysAgentAudit, sysAgentTurn, tenant, usageDaily } from "@/db/schema";
import { BatchedGovernanceRecorder } from "@/lib/governance/batched-recorder";
import { type ProcessIdentity, writeHeartbeat } from "@/lib/governance/instance";
import { sweepInterruptedTurns } from "@/lib/governance/ledger";
import { runReconcileOnce } from "@/lib/governance/maintenance";
import { checkRange, type DriftLine, RECONCILE_ACTOR, reconcileRollups } from "@/lib/governance/reconcile";
import { GovernanceRecorder } from "@/lib/governance/recorder";
import { applyRetention } from "@/lib/governance/retention";
import type { TurnStatus, TurnSummary } from "@/lib/turns/events";
import type { TurnStart } from "@/lib/turns/observer";
import { useSeededAppDatabase } from "../helpers/app-db";
import { runCli } from "../helpers/cli";
import { testDbKinds } from "../helpers/db";

const DAY_MS = 86_400_000;
const day = (at: Date | number) => new Date(at).toISOString().slice(0, 10);

type Served = { adapter: string; model: string } | null;
type TurnPlan = {
  recorder: "chat" | "api";
  /** chat turns only: closed normally, left running by a dead process, or swept while alive and then closed. */
  fate: "close" | "crash" | "stall";
  user: 0 | 1;
  source: "drawer" | "schedule";
  /** Milliseconds before now (up to 3 days, so turns fall on both sides of UTC midnights). */
  agoMs: number;
  status: TurnStatus;
  served: Served;
  usage: { input: number; cached: number; written: number; output: number; reasoning: number };
  cost: string | null;
  latencyMs: number;
};

const turnPlan: fc.Arbitrary<TurnPlan> = fc.record({
  recorder: fc.constantFrom("chat", "api"),
  fate: fc.constantFrom("close", "close", "crash", "stall"),
  user: fc.constantFrom(0, 1),
  source: fc.constantFrom("drawer", "schedule"),
  agoMs: fc.integer({ min: 60_000, max: 3 * DAY_MS }),
  status: fc.constantFrom("success", "failed", "stopped", "limit"),
  served: fc.constantFrom<Served>(
    null,
    { adapter: "openai", model: "gpt-4o-mini" },
    { adapter: "anthropic", model: "claude-haiku-4-5" },
  ),
  usage: fc.record({
    input: fc.integer({ min: 0, max: 50_000 }),
    cached: fc.integer({ min: 0, max: 5_000 }),
    written: fc.integer({ min: 0, max: 5_000 }),
    output: fc.integer({ min: 0, max: 5_000 }),
    reasoning: fc.integer({ min: 0, max: 2_000 }),
  }),
  // Null is an unpriced call; otherwise up to 10 decimal places, as numeric(20,10) keeps.
  cost: fc.option(
    fc
      .tuple(fc.integer({ min: 0, max: 99 }), fc.integer({ min: 0, max: 9_999_999_999 }))
      .map(([units, fraction]) => `${units}.${String(fraction).padStart(10, "0")}`),
  ),
  latencyMs: fc.integer({ min: 0, max: 120_000 }),
});

describe.each(testDbKinds)("rollups equal the ledger on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let db: Database;
  let acme: string;
  let globex: string;
  let users: [string, string];
  let globexUser: string;
  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    db = app.db;
    acme = await app.tenantId("acme");
    globex = await app.tenantId("globex");
    users = [await app.userId("member@acme.test"), await app.userId("admin@acme.test")];
    globexUser = await app.userId("member@globex.test");
  });
  afterAll(async () => {
    await app.close();
  });
  const clean = async () => {
    await db.delete(sysAgentAudit);
    await db.delete(sysAgentTurn);
    await db.delete(usageDaily);
    await db.delete(instance);
    await db.delete(adminChange);
  };
  beforeEach(clean);

  const identity = (): ProcessIdentity => ({
    id: randomUUID(),
    host: "test-host",
    pid: 999_999,
    processSpace: null,
  });
  const stale = (id: string) =>
    db.update(instance).set({ heartbeatAt: sql`now() - interval '1 minute'` }).where(eq(instance.id, id));

  const startOf = (
    plan: Pick<TurnPlan, "recorder" | "user" | "source" | "agoMs">,
    now: number,
  ): TurnStart => {
    const common = {
      turnId: randomUUID(),
      tenantId: acme,
      userId: users[plan.user],
      requestedModel: "default",
      message: "hello",
      toolsOffered: [],
      startedAt: new Date(now - plan.agoMs),
    };
    return plan.recorder === "api"
      ? { ...common, source: "api", conversationId: null }
      : { ...common, source: plan.source, conversationId: randomUUID() };
  };
  const summaryOf = (
    start: TurnStart,
    plan: Omit<TurnPlan, "recorder" | "fate" | "user" | "source" | "agoMs">,
  ) =>
    ({
      turnId: start.turnId,
      conversationId: start.conversationId,
      status: plan.status,
      requestedModel: start.requestedModel,
      servedProvider: plan.served?.adapter ?? null,
      servedAdapter: plan.served?.adapter ?? null,
      servedModel: plan.served?.model ?? null,
      fallbackIndex: plan.served ? 0 : null,
      attempts: [],
      usage: {
        inputTokens: plan.usage.input,
        cachedInputTokens: plan.usage.cached,
        cacheWriteTokens: plan.usage.written,
        outputTokens: plan.usage.output,
        reasoningTokens: plan.usage.reasoning,
      },
      cost: plan.cost,
      rounds: 1,
      toolTrace: [],
      timeToFirstTokenMs: null,
      latencyMs: plan.latencyMs,
      ...(plan.status === "failed" ? { error: { class: "server", message: "500" } } : {}),
    }) as TurnSummary;

  /** Per key, the ledger's closed rows summed here in TypeScript (not with rollup-sql.ts) and the rollup lines. */
  async function bothSides() {
    const ledger = new Map<string, Record<string, string>>();
    for (const row of await db.select().from(sysAgentTurn)) {
      if (row.status === "running") continue;
      const key = [
        row.tenantId,
        day(row.startedAt),
        row.userId,
        row.source,
        row.servedAdapter ?? "none",
        row.servedModel ?? row.requestedModel,
      ].join("|");
      const line = ledger.get(key) ?? {
        requests: "0",
        failures: "0",
        inputTokens: "0",
        cachedInputTokens: "0",
        cacheWriteTokens: "0",
        outputTokens: "0",
        reasoningTokens: "0",
        latencyMsTotal: "0",
        unpricedRequests: "0",
        cost: "0",
      };
      const add = (k: string, v: string | number | null) => {
        line[k] = new Big(line[k]!).plus(v ?? 0).toString();
      };
      add("requests", 1);
      add("failures", row.status === "failed" ? 1 : 0);
      add("inputTokens", row.inputTokens);
      add("cachedInputTokens", row.cachedInputTokens);
      add("cacheWriteTokens", row.cacheWriteTokens);
      add("outputTokens", row.outputTokens);
      add("reasoningTokens", row.reasoningTokens);
      add("latencyMsTotal", row.latencyMs);
      add("unpricedRequests", row.costStatus === "unpriced" ? 1 : 0);
      add("cost", row.cost);
      ledger.set(key, line);
    }
    const rollup = new Map<string, Record<string, string>>();
    for (const u of await db.select().from(usageDaily)) {
      const key = [u.tenantId, u.day, u.userId, u.source, u.servedAdapter, u.servedModel].join("|");
      const { tenantId, day: _d, userId, source, servedAdapter, servedModel, ...sums } = u;
      const line = Object.fromEntries(Object.entries(sums).map(([k, v]) => [k, new Big(v).toString()]));
      // A line emptied by an undone sweep holds nothing: the same as no line.
      if (Object.values(line).some((v) => v !== "0")) rollup.set(key, line);
    }
    return { ledger: Object.fromEntries(ledger), rollup: Object.fromEntries(rollup) };
  }
  const wholeRange = () => ({ from: day(Date.now() - 4 * DAY_MS), to: day(Date.now() + DAY_MS) });

  it("property: random turns through both recorders, stops, failures, crashes swept to interrupted and sweeps undone sum up exactly", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(turnPlan, { minLength: 1, maxLength: 14 }), async (plans) => {
        await clean();
        const now = Date.now();
        const [alive, dying, stalled] = [identity(), identity(), identity()];
        for (const p of [alive, dying, stalled]) await writeHeartbeat(db, p);
        const chat = {
          close: new GovernanceRecorder(async () => db, { instanceId: alive.id }),
          crash: new GovernanceRecorder(async () => db, { instanceId: dying.id }),
          stall: new GovernanceRecorder(async () => db, { instanceId: stalled.id }),
        };
        const api = new BatchedGovernanceRecorder(async () => db, { maxDelayMs: 1, maxTurns: 4 });
        const turns = plans.map((plan) => ({ plan, start: startOf(plan, now) }));
        const recorderOf = ({ plan }: (typeof turns)[number]) =>
          plan.recorder === "api" ? api : chat[plan.fate];
        for (const t of turns) await recorderOf(t).start(t.start);
        // Normal closes (the API's in batches, at once).
        await Promise.all(
          turns
            .filter((t) => t.plan.recorder === "api" || t.plan.fate === "close")
            .map((t) => recorderOf(t).end(summaryOf(t.start, t.plan))),
        );
        await api.flush();
        // The dying process is gone; the stalled one only looks gone: both are swept.
        await stale(dying.id);
        await stale(stalled.id);
        await sweepInterruptedTurns(db);
        // The stalled process wakes up and closes its turns (the sweep's lines are taken back).
        for (const t of turns.filter((t) => t.plan.recorder === "chat" && t.plan.fate === "stall"))
          await chat.stall.end(summaryOf(t.start, t.plan));

        const { ledger, rollup } = await bothSides();
        expect(rollup).toEqual(ledger);
        const closed = turns.filter((t) => t.plan.recorder === "api" || t.plan.fate !== "crash").length;
        const interrupted = turns.length - closed;
        expect(Object.values(ledger).reduce((n, l) => n + Number(l.requests), 0)).toBe(closed + interrupted);
        expect((await reconcileRollups(db, { ...wholeRange(), repair: false })).lines).toEqual([]);
      }),
      { numRuns: kind === "pglite" ? 30 : 25 },
    );
  }, 180_000);

  /** A few closed turns on three keys (two users, two days) and one in Globex. */
  async function someHistory() {
    const recorder = new GovernanceRecorder(async () => db);
    // Midday (UTC) today, so "a minute ago" is today whenever the test runs.
    const now = Date.parse(`${day(Date.now())}T12:00:00Z`);
    const plan = {
      status: "success" as const,
      served: { adapter: "openai", model: "gpt-4o-mini" },
      usage: { input: 100, cached: 0, written: 0, output: 50, reasoning: 0 },
      cost: "0.0012345678",
      latencyMs: 900,
    };
    const at = [
      { user: 0, agoMs: 60_000 },
      { user: 0, agoMs: 120_000 },
      { user: 1, agoMs: 60_000 },
      { user: 0, agoMs: DAY_MS + 60_000 },
    ] as const;
    for (const a of at) {
      const start = startOf({ recorder: "chat", source: "drawer", ...a }, now);
      await recorder.start(start);
      await recorder.end(summaryOf(start, plan));
    }
    const other = { ...startOf({ recorder: "chat", source: "drawer", user: 0, agoMs: 60_000 }, now) };
    other.tenantId = globex;
    other.userId = globexUser;
    await recorder.start(other);
    await recorder.end(summaryOf(other, plan));
    return now;
  }

  it("finds exactly the broken lines (changed, deleted, phantom), repairs them, records the repair, and then finds none", async () => {
    const now = await someHistory();
    const today = day(now);
    const yesterday = day(now - DAY_MS);
    const acmeToday = sql`${usageDaily.tenantId} = ${acme} and ${usageDaily.day} = ${today}`;
    // Changed: the first user's line today; deleted: the second user's; phantom: a line with no turns at all.
    await db
      .update(usageDaily)
      .set({ requests: sql`${usageDaily.requests} + 5`, cost: sql`${usageDaily.cost} + 1.5` })
      .where(sql`${acmeToday} and ${usageDaily.userId} = ${users[0]}`);
    await db.delete(usageDaily).where(sql`${acmeToday} and ${usageDaily.userId} = ${users[1]}`);
    await db.insert(usageDaily).values({
      tenantId: acme,
      day: yesterday,
      userId: users[1],
      source: "api",
      servedAdapter: "openai",
      servedModel: "gpt-4.1",
      requests: 3,
      failures: 1,
      cost: "0.25",
    });

    const range = { from: yesterday, to: today };
    const dry = await reconcileRollups(db, { ...range, repair: false });
    const brief = (lines: DriftLine[]) =>
      lines.map((l) => ({ day: l.key.day, user: l.key.userId, source: l.key.source, columns: l.columns }));
    expect(brief(dry.lines)).toEqual(
      expect.arrayContaining([
        {
          day: today,
          user: users[0],
          source: "drawer",
          columns: {
            requests: { rollup: "7", ledger: "2" },
            cost: { rollup: "1.5024691356", ledger: "0.0024691356" },
          },
        },
        {
          day: today,
          user: users[1],
          source: "drawer",
          columns: {
            requests: { rollup: "0", ledger: "1" },
            inputTokens: { rollup: "0", ledger: "100" },
            outputTokens: { rollup: "0", ledger: "50" },
            latencyMsTotal: { rollup: "0", ledger: "900" },
            cost: { rollup: "0", ledger: "0.0012345678" },
          },
        },
        {
          day: yesterday,
          user: users[1],
          source: "api",
          columns: {
            requests: { rollup: "3", ledger: "0" },
            failures: { rollup: "1", ledger: "0" },
            cost: { rollup: "0.25", ledger: "0" },
          },
        },
      ]),
    );
    expect(dry.lines).toHaveLength(3);
    expect(dry.repaired).toBe(0);
    // A dry run changes nothing; the tenant filter sees only its own lines.
    expect((await reconcileRollups(db, { ...range, repair: false })).lines).toHaveLength(3);
    expect((await reconcileRollups(db, { ...range, tenantId: globex, repair: true })).lines).toEqual([]);

    const fixed = await reconcileRollups(db, { ...range, repair: true });
    expect(fixed.repaired).toBe(3);
    expect(brief(fixed.lines)).toEqual(brief(dry.lines));
    expect((await reconcileRollups(db, { ...range, repair: true })).lines).toEqual([]);
    const { ledger, rollup } = await bothSides();
    expect(rollup).toEqual(ledger);

    const changes = await db.select().from(adminChange).where(eq(adminChange.tenantId, acme));
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({
      actorId: RECONCILE_ACTOR.id,
      actorEmail: "system:reconcile",
      action: "usage_rollup.repaired",
      objectType: "usage_rollup",
      objectId: `${yesterday}..${today}`,
    });
    expect((changes[0]!.after as { lines: number }).lines).toBe(3);
  });

  it("retention cuts whole UTC days of the ledger and the rollups alike, and reconcile leaves days it cut alone", async () => {
    await db.update(tenant).set({ retentionDays: 30 }).where(eq(tenant.id, acme));
    try {
      const now = await someHistory();
      // 30 days after a moment between today's two turns of the first user (11:58 and 11:59 UTC): the cut-off
      // falls inside their day, which is kept whole (deleting one turn and not its line would be drift).
      const inRetention = new Date(now - 90_000 + 30 * DAY_MS);
      await applyRetention(db, { now: inRetention });
      const today = { from: day(now), to: day(now) };
      expect((await reconcileRollups(db, { ...today, repair: false, now: inRetention })).lines).toEqual([]);
      expect(await db.select().from(sysAgentTurn).where(eq(sysAgentTurn.tenantId, acme))).toHaveLength(3);
      // 40 days on, the day is gone from both.
      await applyRetention(db, { now: new Date(now + 40 * DAY_MS) });
      expect(await db.select().from(usageDaily).where(eq(usageDaily.tenantId, acme))).toEqual([]);
      expect(await db.select().from(sysAgentTurn).where(eq(sysAgentTurn.tenantId, acme))).toEqual([]);
      // A leftover rollup line before the retention cut-off is not "repaired" against a ledger that is gone.
      await db.insert(usageDaily).values({
        tenantId: acme,
        day: day(now - 200 * DAY_MS),
        userId: users[0],
        source: "drawer",
        servedAdapter: "openai",
        servedModel: "gpt-4o-mini",
        requests: 4,
      });
      const range = { from: day(now - 365 * DAY_MS), to: day(now) };
      const result = await reconcileRollups(db, {
        ...range,
        tenantId: acme,
        repair: true,
        now: new Date(now),
      });
      expect(result.lines).toEqual([]);
    } finally {
      await db.update(tenant).set({ retentionDays: 90 }).where(eq(tenant.id, acme));
    }
  });

  it("the maintenance loop's daily run repairs yesterday and today", async () => {
    await someHistory();
    await db.update(usageDaily).set({ requests: 42 });
    const result = await runReconcileOnce();
    // Two Acme days, two Acme users today, and Globex today.
    expect(result?.repaired).toBe(4);
    expect((await reconcileRollups(db, { ...wholeRange(), repair: false })).lines).toEqual([]);
  });

  it("repair while turns close loses none of them", async () => {
    await someHistory();
    const now = Date.now();
    const range = { from: day(now - DAY_MS), to: day(now) };
    const chat = new GovernanceRecorder(async () => db);
    const api = new BatchedGovernanceRecorder(async () => db, { maxDelayMs: 1, maxTurns: 8 });
    const plan = {
      status: "success" as const,
      served: { adapter: "openai", model: "gpt-4o-mini" },
      usage: { input: 10, cached: 1, written: 2, output: 3, reasoning: 4 },
      cost: "0.0000000001",
      latencyMs: 5,
    };
    const close = async (i: number) => {
      const start = startOf(
        { recorder: i % 2 ? "api" : "chat", source: "drawer", user: (i % 3 ? 0 : 1) as 0 | 1, agoMs: 1_000 },
        now,
      );
      const recorder = i % 2 ? api : chat;
      await recorder.start(start);
      await recorder.end(summaryOf(start, plan));
    };
    // Break a line first, so every repair has work to do while the turns close.
    await db.update(usageDaily).set({ requests: 999 }).where(eq(usageDaily.tenantId, acme));
    const repairs = (async () => {
      for (let i = 0; i < 6; i++) {
        await reconcileRollups(db, { ...range, repair: true });
        await db.update(usageDaily).set({ requests: 999 }).where(sql`${usageDaily.tenantId} = ${globex}`);
      }
    })();
    await Promise.all([repairs, ...Array.from({ length: 60 }, (_, i) => close(i))]);
    await api.flush();
    await reconcileRollups(db, { ...range, repair: true });
    expect((await reconcileRollups(db, { ...range, repair: false })).lines).toEqual([]);
    const { ledger, rollup } = await bothSides();
    expect(rollup).toEqual(ledger);
    expect(Object.values(ledger).reduce((n, l) => n + Number(l.requests), 0)).toBe(5 + 60);
  }, 60_000);

  it("a close whose running row was never written still leaves a ledger row for its rollup line", async () => {
    const recorder = new GovernanceRecorder(async () => db);
    const start = startOf({ recorder: "chat", source: "drawer", user: 0, agoMs: 1_000 }, Date.now());
    await recorder.start(start);
    // As if start's insert had failed (a lost connection): the turn runs on and closes.
    await db.delete(sysAgentTurn).where(eq(sysAgentTurn.id, start.turnId));
    await recorder.end(
      summaryOf(start, {
        status: "stopped",
        served: null,
        usage: { input: 1, cached: 0, written: 0, output: 0, reasoning: 0 },
        cost: null,
        latencyMs: 10,
      }),
    );
    const [row] = await db.select().from(sysAgentTurn).where(eq(sysAgentTurn.id, start.turnId));
    expect(row?.status).toBe("stopped");
    const { ledger, rollup } = await bothSides();
    expect(rollup).toEqual(ledger);
  });

  // Two connections are needed for the race: PostgreSQL only (PGlite has one), so the case exists only there.
  if (kind === "postgres")
    it("a sweep that commits while the turn is closing is taken back, not counted beside the close", async () => {
      const stalled = identity();
      await writeHeartbeat(db, stalled);
      const recorder = new GovernanceRecorder(async () => db, { instanceId: stalled.id });
      const start = startOf({ recorder: "chat", source: "drawer", user: 0, agoMs: 1_000 }, Date.now());
      await recorder.start(start);
      await stale(stalled.id);
      let ending: Promise<void> = Promise.resolve();
      // The sweep holds the turn's row while the close starts, and commits once the close is under way.
      await db.transaction(async (tx) => {
        await tx.execute(sql`select 1 from sys_agent_turn where id = ${start.turnId} for update`);
        ending = recorder.end(
          summaryOf(start, {
            status: "success",
            served: { adapter: "openai", model: "gpt-4o-mini" },
            usage: { input: 7, cached: 0, written: 0, output: 3, reasoning: 0 },
            cost: "0.5",
            latencyMs: 10,
          }),
        );
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(await sweepInterruptedTurns(tx)).toBe(1);
      });
      await ending;
      const { ledger, rollup } = await bothSides();
      expect(rollup).toEqual(ledger);
      expect(Object.values(rollup).map((l) => l.requests)).toEqual(["1"]);
    });
});

describe("npm run reconcile", () => {
  const cli = (...args: string[]) => runCli("reconcile", args);

  it("refuses a bad day, a reversed range and an unknown tenant with one line and exit 1; reports a clean range", async () => {
    expect(() => checkRange("2026-11-30", "2026-11-01")).toThrow(
      "--from 2026-11-30 is after --to 2026-11-01",
    );
    const [badDay, unknown, clean] = await Promise.all([
      cli("--from", "2026-02-30"),
      cli("--tenant", "no-such-tenant"),
      cli("--from", "2026-11-01", "--to", "2026-11-30", "--dry-run"),
    ]);
    expect(badDay).toMatchObject({
      code: 1,
      stderr: 'Failed: --from must be a real day like 2026-11-01 (got "2026-02-30")\n',
    });
    expect(unknown).toMatchObject({ code: 1, stderr: 'Failed: no tenant with slug "no-such-tenant"\n' });
    expect(clean.code).toBe(0);
    expect(clean.stdout).toMatch(
      /^2026-11-01\.\.2026-11-30: 0 rollup lines differed from the ledger; nothing to repair/,
    );
    // Three processes, each migrating an embedded database of its own (and run again if V8 aborts one at start-up):
    // on a loaded 2-core CI machine that took past a minute.
  }, 180_000);
});
