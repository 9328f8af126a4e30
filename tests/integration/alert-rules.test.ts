// The alert rules' evaluation on each database: every kind fires once per threshold and period (evaluated again,
// and by two replicas at once, it fires nothing more), a new period fires again, and a rule's alert carries a
// pending delivery to each of its enabled channels. Ledger rows, rollups and budget counters are seeded directly,
// at a fixed instant.
import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Database } from "@/db";
import {
  alertChannel,
  alertDelivery,
  alertEvent,
  alertRule,
  apiKey,
  sysAgentTurn,
  usageDaily,
  usageLimit,
} from "@/db/schema";
import {
  evaluateAlerts,
  evaluateBudgetRules,
  handleRunCeilingCrossing,
  installBudgetAlerts,
} from "@/features/alerts/server";
import { median } from "@/features/alerts/server/evaluate";
import type { RouteRow } from "@/lib/gateway/gateway";
import { BUDGET_TTL, budgetKey } from "@/lib/pipeline/budget";
import { noticeBudgetUse } from "@/lib/pipeline/budget-alerts";
import { PostgresCounters } from "@/lib/pipeline/counters";
import { toNano } from "@/lib/pipeline/money";
import { windowsAt } from "@/lib/pipeline/windows";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";

/** A fixed instant, far from the demo's sample history (which is near the real today). */
const NOW = new Date("2026-03-10T12:02:30Z");
const MIN = 60_000;
const ago = (ms: number, from = NOW) => new Date(from.getTime() - ms);

describe.each(testDbKinds)("alert rules on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let db: Database;
  let acme: string;
  let globex: string;
  let admin: string;
  let counters: PostgresCounters;

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    db = app.db;
    acme = await app.tenantId("acme");
    globex = await app.tenantId("globex");
    admin = await app.userId("admin@acme.test");
    counters = new PostgresCounters(async () => db);
  });
  afterAll(async () => app.close());
  beforeEach(async () => {
    await db.delete(alertRule);
    await db.delete(alertChannel);
    await db.delete(alertEvent);
    await db.delete(sysAgentTurn);
    await db.delete(usageDaily);
    await db.delete(usageLimit);
  });

  const channel = async (tenantId: string | null, enabled = true) => {
    const [row] = await db
      .insert(alertChannel)
      .values({
        tenantId,
        name: "ops hook",
        kind: "webhook",
        enabled,
        config: { url: "https://hooks.example.com/a", secret: "s".repeat(16), maxAttempts: 3 },
      })
      .returning();
    return row!.id;
  };
  const rule = async (
    ruleKind: (typeof alertRule.$inferInsert)["kind"],
    params: Record<string, unknown>,
    tenantId: string | null = acme,
    channelIds: string[] = [],
  ) => {
    const [row] = await db
      .insert(alertRule)
      .values({ tenantId, name: `${ruleKind} rule`, kind: ruleKind, params, channelIds })
      .returning();
    return row!.id;
  };
  const events = (ruleId: string) =>
    db.select().from(alertEvent).where(eq(alertEvent.ruleId, ruleId)).orderBy(alertEvent.dedupeKey);
  const keysOf = async (ruleId: string) => (await events(ruleId)).map((e) => e.dedupeKey);
  const turns = async (
    rows: {
      at: Date;
      n?: number;
      status?: "success" | "failed" | "interrupted" | "running" | "limit";
      model?: string;
      tenantId?: string;
      costStatus?: "priced" | "unpriced";
      guardrail?: "blocked" | "passed";
    }[],
  ) => {
    const values = rows.flatMap((r) =>
      Array.from({ length: r.n ?? 1 }, () => ({
        id: randomUUID(),
        tenantId: r.tenantId ?? acme,
        userId: admin,
        source: "api" as const,
        requestedModel: r.model ?? "team-gpt",
        status: r.status ?? ("success" as const),
        costStatus: r.costStatus ?? ("priced" as const),
        guardrail: r.guardrail ?? null,
        startedAt: r.at,
      })),
    );
    await db.insert(sysAgentTurn).values(values);
  };
  /** Two evaluations at once, as two replicas would run them: each alert is written once. */
  const twice = async (at = NOW, routes?: RouteRow[]) => {
    const second = await app.secondPool();
    const sources = { counters: () => counters, routes: routes ? () => routes : undefined };
    const [a, b] = await Promise.all([evaluateAlerts(db, at, sources), evaluateAlerts(second, at, sources)]);
    expect(a.failed + b.failed).toBe(0);
    return a.fired + b.fired;
  };

  it("budget thresholds: 50, 80 and 100 % each fire once per budget and period, and a new month fires again", async () => {
    const hook = await channel(acme);
    const id = await rule("budget_threshold", { period: "monthly" }, acme, [hook]);
    await db
      .insert(usageLimit)
      .values({ tenantId: acme, scope: "tenant", subjectId: acme, monthlyHardUsd: "10" });
    const month = windowsAt(NOW.getTime()).month;
    const spend = async (usd: string, at = month) =>
      counters.take(acme, [
        {
          key: budgetKey("tenant", acme, "monthly", at),
          amount: toNano(usd),
          limit: null,
          ttlSeconds: BUDGET_TTL.monthly,
        },
      ]);

    await spend("4.99");
    expect(await twice()).toBe(0);
    await spend("0.01");
    expect(await twice()).toBe(1);
    expect(await keysOf(id)).toEqual([`budget:tenant:${acme}:monthly:${month}:50`]);
    await spend("3.5");
    expect(await twice()).toBe(1);
    await spend("1.5");
    expect(await twice()).toBe(1);
    expect(await twice()).toBe(0);
    const fired = await events(id);
    expect(fired.map((e) => [e.dedupeKey.split(":").at(-1), e.severity])).toEqual([
      ["100", "critical"],
      ["50", "info"],
      ["80", "warning"],
    ]);
    expect(fired[0]!.title).toContain("100% of the monthly budget of the tenant");
    // Each alert has one pending delivery to the rule's channel.
    const deliveries = await db.select().from(alertDelivery).where(eq(alertDelivery.channelId, hook));
    expect(deliveries).toHaveLength(3);
    expect(deliveries.every((d) => d.status === "pending" && d.tenantId === acme)).toBe(true);

    // April: a new window starts from nothing, and its 50 % fires again.
    const april = new Date("2026-04-02T00:00:00Z");
    expect(await twice(april)).toBe(0);
    await spend("6", "2026-04");
    expect(await twice(april)).toBe(1);
    expect(await keysOf(id)).toContain(`budget:tenant:${acme}:monthly:2026-04:50`);
  });

  it("a budget rule for one key ignores the tenant's budget, and the soft limit is measured when asked", async () => {
    const key = randomUUID();
    const id = await rule("budget_threshold", {
      scope: "key",
      subjectId: key,
      period: "daily",
      limit: "soft",
    });
    const day = windowsAt(NOW.getTime()).day;
    await db.insert(usageLimit).values([
      { tenantId: acme, scope: "tenant", subjectId: acme, dailyHardUsd: "1" },
      { tenantId: acme, scope: "key", subjectId: key, dailySoftUsd: "2", dailyHardUsd: "4" },
    ]);
    await counters.take(acme, [
      { key: budgetKey("tenant", acme, "daily", day), amount: toNano("1"), limit: null, ttlSeconds: 60 },
      { key: budgetKey("key", key, "daily", day), amount: toNano("1.7"), limit: null, ttlSeconds: 60 },
    ]);
    // 1.70 of the soft 2.00 is 85 %: 50 and 80 fire (against the hard 4.00 it would be under 50).
    expect(await twice()).toBe(2);
    expect(await keysOf(id)).toEqual([
      `budget:key:${key}:daily:${day}:50`,
      `budget:key:${key}:daily:${day}:80`,
    ]);
  });

  it("the budget step's notice evaluates the tenant's budget rules at once, throttled per counter and mark", async () => {
    const id = await rule("budget_threshold", { period: "daily", thresholds: [50] });
    await db
      .insert(usageLimit)
      .values({ tenantId: acme, scope: "tenant", subjectId: acme, dailyHardUsd: "2" });
    const today = windowsAt(Date.now()).day;
    const key = budgetKey("tenant", acme, "daily", today);
    await counters.take(acme, [{ key, amount: toNano("1.2"), limit: null, ttlSeconds: 60 }]);
    /** Counts the evaluations the notices caused: each reads the budget counters once. */
    let heard = 0;
    class CountedCounters extends PostgresCounters {
      override read(tenantId: string, keys: string[]) {
        heard++;
        return super.read(tenantId, keys);
      }
    }
    const counted = new CountedCounters(async () => db);
    const stop = installBudgetAlerts({ db: async () => db, counters: () => counted });
    try {
      noticeBudgetUse(acme, key, toNano("0.9"), toNano("2"));
      noticeBudgetUse(acme, key, toNano("1.2"), toNano("2"));
      noticeBudgetUse(acme, key, toNano("1.3"), toNano("2"));
      await expect.poll(async () => (await events(id)).length).toBe(1);
      // Below 50 % nothing is told; the next two calls at the same mark are throttled: one evaluation.
      expect(heard).toBe(1);
      expect(await evaluateBudgetRules(db, counters, acme)).toBe(0);
    } finally {
      stop();
    }
  });

  it("run ceilings: each threshold fires once per run and measure", async () => {
    const id = await rule("run_ceiling", { thresholds: [80, 100] });
    await rule("run_ceiling", {}, globex);
    const crossing = {
      tenantId: acme,
      scope: "key",
      subjectId: randomUUID(),
      runId: "run-7",
      measure: "usd",
    };
    expect(await handleRunCeilingCrossing(db, { ...crossing, used: 0.85, ceiling: 1 })).toBe(1);
    expect(await handleRunCeilingCrossing(db, { ...crossing, used: 0.9, ceiling: 1 })).toBe(0);
    expect(await handleRunCeilingCrossing(db, { ...crossing, used: 1, ceiling: 1 })).toBe(1);
    expect(await handleRunCeilingCrossing(db, { ...crossing, runId: "run-8", used: 2, ceiling: 1 })).toBe(2);
    expect(await keysOf(id)).toEqual([
      "run:run-7:usd:100",
      "run:run-7:usd:80",
      "run:run-8:usd:100",
      "run:run-8:usd:80",
    ]);
  });

  it("spend anomaly: today past N × the median day of the week before, above the floor, once a day", async () => {
    const id = await rule("spend_anomaly", { multiple: 3, minSpendUsd: 5 });
    const day = (n: number) => new Date(NOW.getTime() - n * 86_400_000).toISOString().slice(0, 10);
    const rollup = (d: string, cost: string, tenantId = acme) => ({
      tenantId,
      day: d,
      userId: admin,
      source: "api",
      servedAdapter: "openai",
      servedModel: "gpt-4o-mini",
      requests: 1,
      cost,
    });
    // The week before: 1, 2, 2, 2, 3, 10, 0 → median 2.
    await db.insert(usageDaily).values(["1", "2", "2", "2", "3", "10"].map((c, i) => rollup(day(i + 1), c)));
    await db.insert(usageDaily).values(rollup(day(0), "6"));
    expect(await twice()).toBe(0);
    await db
      .update(usageDaily)
      .set({ cost: "6.5" })
      .where(and(eq(usageDaily.tenantId, acme), eq(usageDaily.day, day(0))));
    expect(await twice()).toBe(1);
    expect(await twice(new Date(NOW.getTime() + 3_600_000))).toBe(0);
    const [event] = await events(id);
    expect(event!.dedupeKey).toBe(`anomaly:${acme}:${day(0)}`);
    expect(event!.details).toMatchObject({ spentUsd: 6.5, medianUsd: 2 });

    // Under the floor nothing fires, however quiet the week was.
    const quiet = await rule("spend_anomaly", { multiple: 3, minSpendUsd: 1 }, globex);
    await db.insert(usageDaily).values(rollup(day(0), "0.5", globex));
    expect(await twice()).toBe(0);
    expect(await keysOf(quiet)).toEqual([]);
    // A platform rule watches every tenant: Acme's day is its alert too.
    const platform = await rule("spend_anomaly", { multiple: 3, minSpendUsd: 5 }, null);
    expect(await twice()).toBe(1);
    expect(await keysOf(platform)).toEqual([`anomaly:${acme}:${day(0)}`]);
    expect((await events(platform))[0]!.tenantId).toBeNull();
    expect(median([1, 2, 2, 2, 3, 10, 0])).toBe(2);
    expect(median([1, 4])).toBe(2.5);
  });

  it("failure rate: fires once per incident, not every minute while it lasts, and again for a new one", async () => {
    const id = await rule("failure_rate", { alias: "team-gpt", percent: 50, minCalls: 10 });
    const any = await rule("failure_rate", { percent: 50, minCalls: 10 });
    // 12:00–12:02:30: 6 failed and 2 interrupted of 12 finished calls (66 %); running ones do not count.
    await turns([
      { at: ago(2 * MIN), n: 6, status: "failed" },
      { at: ago(1 * MIN), n: 2, status: "interrupted" },
      { at: ago(1 * MIN), n: 4 },
      { at: ago(1 * MIN), n: 20, status: "running" },
      // Another alias, healthy, and below the minimum calls when failing.
      { at: ago(MIN), n: 30, model: "other" },
      { at: ago(MIN), n: 5, model: "third", status: "failed" },
    ]);
    expect(await twice()).toBe(2);
    const [event] = await events(id);
    expect(event!.dedupeKey).toBe("failure:team-gpt:2026-03-10T12:00:00.000Z");
    expect(event!.details).toMatchObject({ calls: 12, failed: 8 });
    expect(await keysOf(any)).toEqual(["failure:team-gpt:2026-03-10T12:00:00.000Z"]);

    // Still failing 4, 9 and 14 minutes later: the same incident, no new alert.
    for (const later of [4, 9, 14]) {
      const at = new Date(NOW.getTime() + later * MIN);
      await turns([{ at: ago(MIN, at), n: 10, status: "failed" }]);
      expect(await twice(at)).toBe(0);
    }
    // It recovers (a healthy bucket), then fails again: a new incident, a new alert.
    const healthy = new Date(NOW.getTime() + 22 * MIN);
    await turns([{ at: ago(MIN, healthy), n: 40 }]);
    expect(await twice(healthy)).toBe(0);
    const again = new Date(NOW.getTime() + 33 * MIN);
    await turns([{ at: ago(MIN, again), n: 10, status: "failed" }]);
    expect(await twice(again)).toBe(2);
    expect(await keysOf(id)).toEqual([
      "failure:team-gpt:2026-03-10T12:00:00.000Z",
      "failure:team-gpt:2026-03-10T12:30:00.000Z",
    ]);
  });

  it("failure rate as a platform rule counts every tenant's calls to the alias", async () => {
    const id = await rule("failure_rate", { percent: 50, minCalls: 10 }, null);
    await turns([
      { at: ago(MIN), n: 5, status: "failed" },
      { at: ago(MIN), n: 5, status: "failed", tenantId: globex },
      { at: ago(MIN), n: 4, tenantId: globex },
    ]);
    expect(await twice()).toBe(1);
    expect((await events(id))[0]!.details).toMatchObject({ alias: "team-gpt", calls: 14, failed: 10 });
  });

  it("unpriced calls: past N in the last hour, once per hour bucket", async () => {
    const id = await rule("unpriced_calls", { threshold: 3 });
    await turns([
      { at: ago(30 * MIN), n: 3, costStatus: "unpriced" },
      { at: ago(61 * MIN), n: 5, costStatus: "unpriced" },
      { at: ago(MIN), n: 10 },
    ]);
    expect(await twice()).toBe(0);
    await turns([{ at: ago(MIN), costStatus: "unpriced" }]);
    expect(await twice()).toBe(1);
    expect(await twice(new Date(NOW.getTime() + 10 * MIN))).toBe(0);
    // The next hour, still past it: once more.
    const next = new Date("2026-03-10T13:05:00Z");
    await turns([{ at: ago(MIN, next), n: 4, costStatus: "unpriced" }]);
    expect(await twice(next)).toBe(1);
    expect(await keysOf(id)).toEqual([`unpriced:${acme}:2026-03-10T12`, `unpriced:${acme}:2026-03-10T13`]);
    // Globex's rule sees none of Acme's calls.
    const other = await rule("unpriced_calls", { threshold: 0 }, globex);
    expect(await twice()).toBe(0);
    expect(await keysOf(other)).toEqual([]);
  });

  it("guardrail blocks: past N blocked calls in the last hour, once per hour bucket", async () => {
    const id = await rule("guardrail_blocks", { threshold: 2 });
    await turns([
      { at: ago(10 * MIN), n: 2, guardrail: "blocked" },
      { at: ago(10 * MIN), n: 5, guardrail: "passed" },
    ]);
    expect(await twice()).toBe(0);
    await turns([{ at: ago(MIN), guardrail: "blocked", status: "limit" }]);
    expect(await twice()).toBe(1);
    expect(await twice()).toBe(0);
    expect(await keysOf(id)).toEqual([`blocked:${acme}:2026-03-10T12`]);
  });

  it("key expiring: once per key and expiry; a new expiry fires again; revoked and distant keys do not", async () => {
    const id = await rule("key_expiring", { days: 7 });
    const key = async (name: string, expiresAt: Date | null, revokedAt: Date | null = null) => {
      const [row] = await db
        .insert(apiKey)
        .values({
          tenantId: acme,
          name,
          prefix: "tg_test",
          secretHash: randomUUID(),
          createdBy: admin,
          expiresAt,
          revokedAt,
        })
        .returning();
      return row!;
    };
    const soon = await key("soon", new Date(NOW.getTime() + 3 * 86_400_000));
    await key("later", new Date(NOW.getTime() + 30 * 86_400_000));
    await key("revoked", new Date(NOW.getTime() + 86_400_000), NOW);
    await key("expired", new Date(NOW.getTime() - 86_400_000));
    await key("never", null);
    expect(await twice()).toBe(1);
    expect(await twice()).toBe(0);
    const extended = new Date(NOW.getTime() + 5 * 86_400_000);
    await db.update(apiKey).set({ expiresAt: extended }).where(eq(apiKey.id, soon.id));
    expect(await twice()).toBe(1);
    expect(await keysOf(id)).toEqual(
      [`key:${soon.id}:${soon.expiresAt!.toISOString()}`, `key:${soon.id}:${extended.toISOString()}`].sort(),
    );
  });

  it("breaker open: once per opening of a deployment, whatever aliases route to it", async () => {
    const id = await rule("breaker_open", { provider: "openai" }, null, [await channel(null)]);
    const row = (over: Partial<RouteRow>): RouteRow => ({
      id: "1-1",
      alias: "team-gpt",
      label: "team-gpt",
      strategy: "fallback",
      position: 1,
      provider: "openai",
      providerType: "openai",
      model: "gpt-4o-mini",
      credential: null,
      weight: null,
      state: "healthy",
      coolingUntil: null,
      latencyMs: null,
      calls: 0,
      errorRate: null,
      ...over,
    });
    const until = "2026-03-10T12:03:00.000Z";
    const open = [
      row({ state: "cooling", coolingUntil: until }),
      row({ alias: "house-model", state: "cooling", coolingUntil: until }),
      row({ provider: "anthropic", state: "cooling", coolingUntil: until }),
      row({ model: "gpt-4o", state: "half-open" }),
    ];
    expect(await twice(NOW, [row({})])).toBe(0);
    expect(await twice(NOW, open)).toBe(1);
    expect(await twice(NOW, open)).toBe(0);
    const [event] = await events(id);
    expect(event!.details).toMatchObject({ aliases: ["team-gpt", "house-model"], coolingUntil: until });
    // Opened again after its probe failed: a new cooling end, a new alert.
    expect(await twice(NOW, [row({ state: "cooling", coolingUntil: "2026-03-10T12:05:00.000Z" })])).toBe(1);
    const deliveries = await db.select().from(alertDelivery);
    expect(deliveries.map((d) => d.tenantId)).toEqual([null, null]);
  });

  it("a disabled rule does not fire, and a disabled channel gets no delivery", async () => {
    const off = await channel(acme, false);
    const id = await rule("unpriced_calls", { threshold: 0 }, acme, [off]);
    const disabled = await rule("unpriced_calls", { threshold: 0 });
    await db.update(alertRule).set({ enabled: false }).where(eq(alertRule.id, disabled));
    await turns([{ at: ago(MIN), costStatus: "unpriced" }]);
    expect(await twice()).toBe(1);
    expect(await keysOf(id)).toHaveLength(1);
    expect(await keysOf(disabled)).toEqual([]);
    expect(await db.select().from(alertDelivery).where(eq(alertDelivery.channelId, off))).toEqual([]);
  });
});
