// Alerts from end to end: a run's calls through the pipeline pass 50 and 100 % of the tenant's run ceiling, the
// installed hook fires the tenant's run_ceiling rule once per threshold (two pipelines, as two replicas, and
// repeated crossings notwithstanding), and the sender delivers each alert to a signed webhook (the receiver checks
// the signature), a Slack incoming webhook (its message format) and email (an SMTP server).
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { alertChannel, alertDelivery, alertEvent, alertRule, runCeiling } from "@/db/schema";
import { installBudgetAlerts } from "@/features/alerts/server";
import { AlertSender } from "@/features/alerts/server/delivery";
import { parseAllowList } from "@/lib/agent/toolsets/web/net-guard";
import { parseGatewayConfig } from "@/lib/gateway/config";
import { Gateway } from "@/lib/gateway/gateway";
import { PostgresResponseCache } from "@/lib/pipeline/cache-store";
import { PostgresCounters } from "@/lib/pipeline/counters";
import { Pipeline } from "@/lib/pipeline/pipeline";
import { invalidatePolicy } from "@/lib/pipeline/policy";
import type { FakeProvider } from "../fakes/http";
import { startFakeOpenAI } from "../fakes/openai";
import { receiver, smtpSink, verifySignature } from "../helpers/alert-receivers";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";

const SECRET = "whsec_end_to_end_0123456789";

describe.each(testDbKinds)("alerts from a run's calls to their channels on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let upstream: FakeProvider;
  let acme: string;
  const closers: (() => Promise<unknown> | unknown)[] = [];

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    upstream = await startFakeOpenAI();
    acme = await app.tenantId("acme");
  });
  afterAll(async () => {
    for (const close of closers.reverse()) await close();
    await upstream.close();
    await app.close();
  });

  it("fires each threshold once and delivers it signed to a webhook, in Slack's format, and by email", async () => {
    const db = async () => app.db;
    const hook = await receiver(() => 200);
    const slack = await receiver(() => 200);
    const mail = await smtpSink();
    closers.push(hook.close, slack.close, mail.close);
    const channels = await app.db
      .insert(alertChannel)
      .values([
        {
          tenantId: acme,
          name: "Ops hook",
          kind: "webhook",
          config: { url: hook.url, secret: SECRET, maxAttempts: 3 },
        },
        { tenantId: acme, name: "Ops Slack", kind: "slack", config: { url: slack.url, maxAttempts: 3 } },
        {
          tenantId: acme,
          name: "Ops mail",
          kind: "email",
          config: { to: ["ops@acme.test"], maxAttempts: 3 },
        },
      ])
      .returning({ id: alertChannel.id });
    const [rule] = await app.db
      .insert(alertRule)
      .values({
        tenantId: acme,
        name: "Runaway runs",
        kind: "run_ceiling",
        params: { thresholds: [50, 100] },
        channelIds: channels.map((c) => c.id),
      })
      .returning({ id: alertRule.id });
    await app.db.insert(runCeiling).values({ tenantId: acme, scope: "tenant", subjectId: acme, maxCalls: 4 });
    invalidatePolicy(acme);
    const uninstall = installBudgetAlerts({ db, counters: () => new PostgresCounters(db) });
    closers.push(uninstall);

    upstream.setDefault({ kind: "text", text: "ok", usage: { input: 10, output: 5 }, model: "gpt-4o-mini" });
    const gateway = new Gateway(
      parseGatewayConfig(
        {
          providers: { up: { type: "openai", baseUrl: upstream.url } },
          models: { "team-gpt": { candidates: [{ provider: "up", model: "gpt-4o-mini" }] } },
          prices: { "up/gpt-4o-mini": { input: "1", output: "2" } },
          retry: { maxRetries: 0 },
        },
        "test",
        {},
      ),
    );
    // Two pipelines with their own counter stores: two replicas holding allowances apart.
    const replicas = [0, 1].map(() => {
      const counters = new PostgresCounters(db);
      return new Pipeline({
        db,
        gateway: () => gateway,
        counters: () => counters,
        cache: () => new PostgresResponseCache(db),
      });
    });
    const call = async (n: number) => {
      const events = [];
      for await (const event of replicas[n % 2]!.run(
        { tenantId: acme, apiKeyId: null, userId: null, source: "api", runId: "nightly-report" },
        { model: "team-gpt", messages: [{ role: "user", content: `step ${n}` }], maxTokens: 20 },
        { stream: false },
      ))
        events.push(event);
      return events;
    };
    for (let n = 0; n < 4; n++) expect((await call(n)).some((e) => e.type === "error")).toBe(false);
    // Past the ceiling: refused, and 100 % is not told again.
    const refused = await call(4);
    expect(refused.find((e) => e.type === "error")).toMatchObject({
      error: { class: "run_budget_exceeded" },
    });

    const fired = async () =>
      app.db
        .select({ key: alertEvent.dedupeKey, severity: alertEvent.severity })
        .from(alertEvent)
        .where(eq(alertEvent.ruleId, rule!.id))
        .orderBy(alertEvent.dedupeKey);
    await expect.poll(fired, { timeout: 10_000 }).toEqual([
      { key: "run:nightly-report:calls:100", severity: "critical" },
      { key: "run:nightly-report:calls:50", severity: "warning" },
    ]);

    const sender = new AlertSender({
      db,
      transports: {
        allow: parseAllowList("127.0.0.0/8"),
        smtpUrl: `smtp://127.0.0.1:${mail.port}`,
        from: "Tollgate <alerts@test.local>",
      },
      pollMs: 60_000,
    });
    // Four at a time: as many ticks as it takes.
    while ((await sender.tick()) > 0) await sender.idle();
    const statuses = await app.db
      .select({ status: alertDelivery.status })
      .from(alertDelivery)
      .innerJoin(alertEvent, eq(alertEvent.id, alertDelivery.eventId))
      .where(and(eq(alertDelivery.tenantId, acme), eq(alertEvent.ruleId, rule!.id)));
    expect(statuses.map((s) => s.status)).toEqual(Array(6).fill("delivered"));

    // The webhook: two alerts, each signed with the channel's secret over the raw body.
    expect(hook.received).toHaveLength(2);
    for (const got of hook.received)
      expect(verifySignature(String(got.headers["x-tollgate-signature"]), got.body, SECRET)).toBe(true);
    expect(hook.received.map((r) => JSON.parse(r.body).details.threshold).sort()).toEqual([100, 50]);
    // Slack: a fallback text and blocks (a header and a section).
    expect(slack.received).toHaveLength(2);
    for (const got of slack.received) {
      const message = JSON.parse(got.body);
      expect(typeof message.text).toBe("string");
      expect(message.blocks.map((b: { type: string }) => b.type)).toEqual(
        expect.arrayContaining(["header", "section"]),
      );
    }
    // Email: one message per alert to the channel's address.
    expect(mail.messages).toHaveLength(2);
    for (const m of mail.messages) {
      expect(m.to).toEqual(["ops@acme.test"]);
      expect(m.raw).toMatch(/Subject: \[Tollgate\] (warning|critical): Run nightly-report reached (50|100)%/);
    }
  });
});
