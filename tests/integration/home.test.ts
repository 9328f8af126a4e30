// The home's figures: a tenant admin's spend, calls, failures, top models and keys, budget and alerts, and a
// member's own usage, limits and conversations, read through the pages' own providers and equal to what the
// cost dashboard and the ledger answer for the same filters; never another tenant's, never another person's.
import { inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { alertEvent, alertRule, sysAgentSession, sysAgentTurn, usageDaily } from "@/db/schema";
import { type HomeSources, readAdminHome, readMemberHome } from "@/features/home/server";
import { createApiKey } from "@/features/keys/server/keys";
import { saveLimits } from "@/features/limits/server/settings";
import { loadUserContext, type UserContext } from "@/lib/auth/users";
import { AppError } from "@/lib/core/errors/app-error";
import { createConversation } from "@/lib/governance/conversations";
import { reconcileRollups } from "@/lib/governance/reconcile";
import { fromNano, toNano } from "@/lib/pipeline/money";
import { windowsAt } from "@/lib/pipeline/windows";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";
import { schemaJson as json } from "../helpers/schema-api";
import { session } from "../helpers/session";

vi.mock("@/lib/auth/session", () => import("../helpers/session"));

describe.each(testDbKinds)("the home on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let sources: HomeSources;
  let acme: string;
  let globex: string;
  let admin: string;
  let member: string;
  let billing: string;
  let support: string;
  let memberConversations: string[];
  // The real clock: the budget counters a saved limit is seeded into are keyed by the real day.
  const now = Date.now();
  const { day: today, month } = windowsAt(now);
  const monthStart = `${month}-01`;
  const dayStart = Date.parse(`${today}T00:00:00Z`);
  // Today's rows sit in the first second of the day (never after now); earlier ones on the 1st of the month or
  // last month, so the test holds on any day.
  const todayAt = (ms: number) => new Date(dayStart + ms);
  const lastMonth = new Date(Date.parse(`${monthStart}T00:00:00Z`) - 3_600_000);

  const as = async (email: string, slug: string | null): Promise<UserContext> => {
    const userId = await app.userId(email);
    const tenantId = slug ? await app.tenantId(slug) : null;
    session.claims = { userId, tenantId };
    return (await loadUserContext(app.db, userId, tenantId))!;
  };

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    const db = app.db;
    // The demo's sample month is left out: the figures below are this test's rows only.
    await db.delete(sysAgentTurn);
    await db.delete(usageDaily);
    acme = await app.tenantId("acme");
    globex = await app.tenantId("globex");
    admin = await app.userId("admin@acme.test");
    member = await app.userId("member@acme.test");
    const globexAdmin = await app.userId("admin@globex.test");
    billing = (await createApiKey(db, { tenantId: acme, name: "Billing service", createdBy: admin })).key.id;
    support = (await createApiKey(db, { tenantId: acme, name: "Support bot", createdBy: admin })).key.id;
    const globexKey = (
      await createApiKey(db, { tenantId: globex, name: "Globex app", createdBy: globexAdmin })
    ).key.id;
    type Row = {
      tenantId?: string;
      userId?: string;
      apiKeyId?: string;
      model: string;
      cost: string | null;
      at: Date;
      status?: "success" | "failed" | "running" | "stopped";
    };
    const rows: Row[] = [
      // The admin's chats today: one priced, one failed (still priced), one unpriced.
      { userId: admin, model: "gpt-4o", cost: "1.25", at: todayAt(1) },
      { userId: admin, model: "gpt-4o", cost: "0.0000001234", at: todayAt(2), status: "failed" },
      { userId: admin, model: "mystery-1", cost: null, at: todayAt(3) },
      // API calls today under two keys (their user is the key's creator).
      { userId: admin, apiKeyId: billing, model: "claude-sonnet-4-5", cost: "3", at: todayAt(4) },
      { userId: admin, apiKeyId: billing, model: "claude-sonnet-4-5", cost: "0.5", at: todayAt(5) },
      {
        userId: admin,
        apiKeyId: support,
        model: "gpt-4o-mini",
        cost: "0.02",
        at: todayAt(6),
        status: "failed",
      },
      // The member: two chats today, one earlier this month (or last month on the 1st), one API call of theirs.
      { userId: member, model: "gpt-4o-mini", cost: "0.1", at: todayAt(7) },
      { userId: member, model: "gpt-4o-mini", cost: null, at: todayAt(8), status: "stopped" },
      { userId: member, model: "gpt-4o-mini", cost: "2", at: lastMonth },
      { userId: member, apiKeyId: billing, model: "gpt-4o-mini", cost: "40", at: todayAt(9) },
      // Still running: in neither the rollups nor the home's figures.
      { userId: admin, model: "gpt-4o", cost: "9", at: todayAt(10), status: "running" },
      // Another tenant, today, dearer than anything of acme's.
      {
        tenantId: globex,
        userId: globexAdmin,
        apiKeyId: globexKey,
        model: "globex-only-model",
        cost: "1000",
        at: todayAt(11),
      },
    ];
    await db.insert(sysAgentTurn).values(
      rows.map((r) => ({
        id: crypto.randomUUID(),
        tenantId: r.tenantId ?? acme,
        userId: r.userId,
        source: r.apiKeyId ? ("api" as const) : ("drawer" as const),
        requestedModel: r.model,
        servedModel: r.model,
        servedAdapter: "openai",
        apiKeyId: r.apiKeyId ?? null,
        cost: r.cost,
        costStatus: r.cost === null ? ("unpriced" as const) : ("priced" as const),
        startedAt: r.at,
        status: r.status ?? "success",
      })),
    );
    // The rollups from the ledger, by the product's own repair (what the recorders keep equal as turns close).
    await reconcileRollups(db, {
      from: lastMonth.toISOString().slice(0, 10),
      to: today,
      repair: true,
      now: new Date(now),
    });
    memberConversations = [];
    for (const title of ["Refund for order 1042", "Weekly report"])
      memberConversations.push((await createConversation(db, { tenantId: acme, userId: member, title })).id);
    await createConversation(db, { tenantId: acme, userId: admin, title: "Admin's own chat" });
    await createConversation(db, { tenantId: globex, userId: globexAdmin, title: "Globex chat" });
    // Alerts: one fired now, one two days ago, a "send test" (no rule), and globex's.
    await db.delete(alertEvent).where(inArray(alertEvent.tenantId, [acme, globex]));
    const [acmeRule, globexRule] = await db
      .insert(alertRule)
      .values([
        { tenantId: acme, name: "Failures", kind: "failure_rate", params: {} },
        { tenantId: globex, name: "Globex spend", kind: "spend_anomaly", params: {} },
      ])
      .returning();
    type Fired = Omit<typeof alertEvent.$inferInsert, "body">;
    const event = (e: Fired) => ({ ...e, body: e.title });
    await db.insert(alertEvent).values(
      (<Fired[]>[
        {
          tenantId: acme,
          ruleId: acmeRule!.id,
          dedupeKey: "a",
          severity: "critical",
          title: "Failure rate 33%",
        },
        {
          tenantId: acme,
          ruleId: acmeRule!.id,
          dedupeKey: "b",
          severity: "warning",
          title: "Old one",
          firedAt: new Date(now - 2 * 86_400_000),
        },
        { tenantId: acme, ruleId: null, dedupeKey: "test:x", severity: "info", title: "Test alert" },
        {
          tenantId: globex,
          ruleId: globexRule!.id,
          dedupeKey: "g",
          severity: "critical",
          title: "Globex alert",
        },
      ]).map(event),
    );
    sources = { db, counters: app.container.stores.counters, pages: app.container.pages };
  });
  afterAll(async () => {
    await app.close();
  });

  it("shows a tenant admin today's and this month's spend and calls as the cost dashboard and ledger read them", async () => {
    const auth = await as("admin@acme.test", "acme");
    const home = await readAdminHome(sources, auth, now);
    expect(home).toMatchObject({ today, monthStart });
    // Closed rows only: 1.25 + 0.0000001234 + 3 + 0.5 + 0.02 + 0.1 + 40, exact; two unpriced; two failed.
    expect(home.usage.today).toEqual({ requests: 9, failures: 2, cost: "44.8700001234", unpriced: 2 });

    for (const [period, from] of [
      ["today", today],
      ["month", monthStart],
    ] as const) {
      const cost = (await json(`agent-cost/metrics?f.day.from=${from}`)).body.metrics as Record<
        string,
        unknown
      >;
      const metric = (key: string) => cost[key];
      const usage = home.usage[period];
      expect(usage.requests).toBe(Number(metric("requests")));
      expect(usage.cost).toBe(metric("cost"));
      expect(usage.unpriced).toBe(Number(metric("unpricedRequests")));
      // The ledger's failed segment over the same days counts the same failures.
      const failed = await json(`agent-turns/count?segment=failed&f.startedAt.from=${from}`);
      expect(usage.failures).toBe(failed.body.count);
    }
    // Every closed call the ledger lists for today is counted (the running one is not, by design).
    const all = await json(`agent-turns/count?f.startedAt.from=${today}`);
    expect(home.usage.today.requests).toBe(all.body.count - 1);
  });

  it("lists today's top models and keys by spend as the cost dashboard's charts do, with the key's id", async () => {
    const auth = await as("admin@acme.test", "acme");
    const home = await readAdminHome(sources, auth, now);
    expect(home.topModels).toEqual([
      { model: "gpt-4o-mini", cost: "40.12" },
      { model: "claude-sonnet-4-5", cost: "3.5" },
      { model: "gpt-4o", cost: "1.2500001234" },
      { model: "mystery-1", cost: "0" },
    ]);
    const byModel = (await json(`agent-cost/series?chart=costByModel&f.day.from=${today}`)).body.points as {
      label: string;
      value: string;
    }[];
    expect(home.topModels.map((m) => [m.model, m.cost])).toEqual(
      byModel.slice(0, 5).map((p) => [p.label, String(p.value)]),
    );
    expect(home.topKeys).toEqual([
      { id: billing, label: "Billing service", cost: "43.5" },
      { id: support, label: "Support bot", cost: "0.02" },
    ]);
    const byKey = (await json(`agent-cost/series?chart=costByApiKey&f.day.from=${today}`)).body.points as {
      label: string;
      value: string;
      key: string;
    }[];
    expect(home.topKeys.map((k) => [k.id, k.label, k.cost])).toEqual(
      byKey.slice(0, 5).map((p) => [p.key, p.label, String(p.value)]),
    );
    // The link's filter lands on that key's rows.
    const rows = await json(`agent-turns/count?f.apiKeyId=${support}&f.startedAt.from=${today}`);
    expect(rows.body.count).toBe(1);
  });

  it("never shows another tenant's spend, models, keys or alerts", async () => {
    const acmeHome = await readAdminHome(sources, await as("admin@acme.test", "acme"), now);
    expect(JSON.stringify(acmeHome)).not.toMatch(/globex/i);
    expect(acmeHome.alerts).toMatchObject({ count: 1, capped: false });
    expect(acmeHome.alerts.latest.map((a) => [a.title, a.severity, a.ruleName])).toEqual([
      ["Failure rate 33%", "critical", "Failures"],
    ]);
    const globexHome = await readAdminHome(sources, await as("admin@globex.test", "globex"), now);
    expect(globexHome.usage.today).toEqual({ requests: 1, failures: 0, cost: "1000", unpriced: 0 });
    expect(globexHome.topModels.map((m) => m.model)).toEqual(["globex-only-model"]);
    expect(globexHome.topKeys.map((k) => k.label)).toEqual(["Globex app"]);
    expect(globexHome.alerts.latest.map((a) => a.title)).toEqual(["Globex alert"]);
    // The super admin switched into acme sees acme's figures, the same as its admin.
    const root = await readAdminHome(sources, await as("root@tollgate.test", "acme"), now);
    expect(root.usage).toEqual(acmeHome.usage);
  });

  it("shows the tenant's budget with what its counters hold spent, and no budget when there is none", async () => {
    const auth = await as("admin@acme.test", "acme");
    expect((await readAdminHome(sources, auth, now)).budget).toBeNull();
    await saveLimits(
      app.db,
      sources.counters,
      acme,
      {
        scope: "tenant",
        requestsPerMinute: null,
        tokensPerMinute: null,
        dailySoftUsd: "40",
        dailyHardUsd: "50",
        monthlySoftUsd: null,
        monthlyHardUsd: null,
      },
      admin,
    );
    const { budget } = await readAdminHome(sources, auth, now);
    // Saving a budget seeds its counters from the rollups: today's spend, exactly the cost dashboard's.
    expect(budget).toMatchObject({
      dailySoftUsd: "40",
      dailyHardUsd: "50",
      monthlyHardUsd: null,
      // The counters count whole nano-dollars (rounded up), so a budget is never under-counted.
      spentToday: fromNano(toNano("44.8700001234")),
    });
    expect(budget?.spentToday).toBe("44.870000124");
    // Globex has none.
    expect((await readAdminHome(sources, await as("admin@globex.test", "globex"), now)).budget).toBeNull();
  });

  it("shows a member only their own usage, limits and conversations", async () => {
    const auth = await as("member@acme.test", "acme");
    await expect(readAdminHome(sources, auth, now)).rejects.toSatisfy(
      (e) => e instanceof AppError && e.code === "forbidden",
    );
    const home = await readMemberHome(sources, auth, now);
    // Their chats only: not the admin's, not their own API-key call (their budget does not cover it either).
    expect(home.usage.today).toEqual({ requests: 2, failures: 0, cost: "0.1", unpriced: 1 });
    // Last month's chat is not this month's.
    expect(home.usage.month).toEqual(home.usage.today);
    expect(home.conversations.map((c) => c.id).sort()).toEqual([...memberConversations].sort());
    expect(home.limits).toBeNull();
    await saveLimits(
      app.db,
      sources.counters,
      acme,
      {
        scope: "user",
        subjectId: member,
        requestsPerMinute: null,
        tokensPerMinute: null,
        dailySoftUsd: null,
        dailyHardUsd: "5",
        monthlySoftUsd: null,
        monthlyHardUsd: "20",
      },
      admin,
    );
    await saveLimits(
      app.db,
      sources.counters,
      acme,
      {
        scope: "user",
        subjectId: admin,
        requestsPerMinute: null,
        tokensPerMinute: null,
        dailySoftUsd: null,
        dailyHardUsd: "1",
        monthlySoftUsd: null,
        monthlyHardUsd: null,
      },
      admin,
    );
    const limited = await readMemberHome(sources, auth, now);
    expect(limited.limits).toMatchObject({ dailyHardUsd: "5", monthlyHardUsd: "20", spentToday: "0.1" });
    // The admin's own conversations and limits are theirs: not on the member's home.
    expect(JSON.stringify(limited)).not.toContain("Admin's own chat");
    // A member with no conversations and no calls sees empty figures, not someone else's.
    const multi = await readMemberHome(sources, await as("multi@tollgate.test", "acme"), now);
    expect(multi.conversations).toEqual([]);
    expect(multi.usage.today).toEqual({ requests: 0, failures: 0, cost: "0", unpriced: 0 });
    expect(multi.limits).toBeNull();
  });

  it("refuses the admin view without a tenant", async () => {
    const auth = await as("root@tollgate.test", null);
    await expect(readAdminHome(sources, auth, now)).rejects.toSatisfy(
      (e) => e instanceof AppError && e.code === "forbidden",
    );
    await expect(readMemberHome(sources, auth, now)).rejects.toSatisfy(
      (e) => e instanceof AppError && e.code === "forbidden",
    );
    expect(
      await app.db
        .select()
        .from(sysAgentSession)
        .where(inArray(sysAgentSession.tenantId, [acme])),
    ).toHaveLength(3);
  });
});
