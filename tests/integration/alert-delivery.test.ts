import { eq, sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import type { Database, DatabaseHandle } from "@/db";
import { openDatabase } from "@/db/client";
import { alertChannel, alertDelivery, alertRule, tenant } from "@/db/schema";
import {
  AlertSender,
  type AlertSenderOptions,
  listDeliveries,
  NO_SMTP_ERROR,
  retryDelayMs,
  sendTestAlert,
  type Transports,
} from "@/features/alerts/server/delivery";
import { fireAlert } from "@/features/alerts/server/fire";
import { parseAllowList } from "@/lib/agent/toolsets/web/net-guard";
import { backgroundWork, type LeaderWork } from "@/server/background";
import { type Container, createContainer } from "@/server/container";
import { receiver, smtpSink, verifySignature } from "../helpers/alert-receivers";
import { createMigratedDatabase, type TestDatabase, testDbKinds } from "../helpers/db";

const SECRET = "whsec_0123456789abcdef";
/** The same allowance every guarded fetch's tests use: WEB_FETCH_ALLOW opening loopback. */
const LOOPBACK = "127.0.0.0/8";

/** A raw statement's rows, whichever driver answered (postgres-js: an array; PGlite: `rows`). */
const rowsOf = <T>(result: unknown): T[] =>
  (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];

const until = async (what: string, ok: () => boolean | Promise<boolean>, ms = 15_000) => {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
};

describe("retry delays", () => {
  it("double from the base with each try, stop at the cap, and vary by ±20 %", () => {
    const fixed = { baseMs: 30_000, maxMs: 3_600_000, random: () => 0.5 };
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n, fixed))).toEqual([30_000, 60_000, 120_000, 240_000]);
    expect(retryDelayMs(20, fixed)).toBe(3_600_000);
    expect(retryDelayMs(1, { ...fixed, random: () => 0 })).toBe(24_000);
    expect(retryDelayMs(1, { ...fixed, random: () => 0.999_999 })).toBe(36_000);
  });
});

describe.each(testDbKinds)("alert delivery (%s)", (kind) => {
  let test: TestDatabase;
  let db: Database;
  const cleanup: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const undo of cleanup.splice(0).reverse()) await undo();
    await test?.drop();
  });

  const setup = async () => {
    test = await createMigratedDatabase(kind);
    db = test.handle.db;
  };
  const newTenant = async (slug: string) =>
    (await db.insert(tenant).values({ name: slug, slug }).returning({ id: tenant.id }))[0]!.id;
  const newChannel = async (
    tenantId: string | null,
    kind: "webhook" | "slack" | "email",
    config: Record<string, unknown>,
    name = `${kind} channel`,
  ) =>
    (
      await db
        .insert(alertChannel)
        .values({ tenantId, name, kind, config })
        .returning({ id: alertChannel.id, tenantId: alertChannel.tenantId, name: alertChannel.name })
    )[0]!;
  const fire = (tenantId: string | null, channelIds: string[], key: string, extra = {}) =>
    fireAlert(db, {
      tenantId,
      ruleId: null,
      dedupeKey: key,
      severity: "warning",
      title: `Spend over budget ${key}`,
      body: "acme spent $120 of its $100 monthly budget.",
      details: { spentUsd: 120 },
      channelIds,
      ...extra,
    });
  const transports = (extra: Partial<Transports> = {}): Transports => ({
    allow: parseAllowList(LOOPBACK),
    from: "Tollgate <alerts@test.local>",
    ...extra,
  });
  const outcomes: string[] = [];
  const sender = (options: Partial<AlertSenderOptions> = {}, database: Database = db) => {
    const s = new AlertSender({
      db: async () => database,
      transports: transports(),
      pollMs: 50,
      onOutcome: (k, o) => outcomes.push(`${k}:${o}`),
      ...options,
    });
    cleanup.push(() => s.stop());
    return s;
  };
  const rows = () => db.select().from(alertDelivery).orderBy(alertDelivery.createdAt);
  const drain = async (s: AlertSender) => {
    await s.tick();
    await s.idle();
  };

  it("a webhook gets each event once, signed with the channel's secret, with its delivery and event ids", async () => {
    await setup();
    const hook = await receiver(() => 200);
    cleanup.push(hook.close);
    const acme = await newTenant("acme");
    const channel = await newChannel(acme, "webhook", { url: hook.url, secret: SECRET });
    const [rule] = await db
      .insert(alertRule)
      .values({ tenantId: acme, name: "Monthly budget", kind: "budget_threshold", channelIds: [channel.id] })
      .returning();
    const ruleId = rule!.id;
    const first = await fire(acme, [channel.id], "budget:100:2026-12", { ruleId });
    // The rule fired for this key already (another replica, the next evaluation): nothing more is sent.
    expect(await fire(acme, [channel.id], "budget:100:2026-12", { ruleId })).toBeNull();
    const second = await fire(acme, [channel.id], "budget:200:2026-12", { ruleId });
    outcomes.length = 0;
    await drain(sender());

    expect(hook.received).toHaveLength(2);
    for (const got of hook.received) {
      expect(verifySignature(String(got.headers["x-tollgate-signature"]), got.body, SECRET)).toBe(true);
      expect(
        verifySignature(String(got.headers["x-tollgate-signature"]), got.body, "another-secret-xx"),
      ).toBe(false);
      // A replay of the same signed body ten minutes later is refused by the 5-minute tolerance.
      expect(
        verifySignature(String(got.headers["x-tollgate-signature"]), got.body, SECRET, Date.now() + 600_000),
      ).toBe(false);
      expect(verifySignature(String(got.headers["x-tollgate-signature"]), `${got.body} `, SECRET)).toBe(
        false,
      );
    }
    const bodies = hook.received.map((r) => JSON.parse(r.body));
    expect(bodies.map((b) => b.id).sort()).toEqual([first, second].sort());
    expect(bodies[0]).toMatchObject({
      type: "alert",
      tenantId: acme,
      rule: { id: ruleId, name: "Monthly budget", kind: "budget_threshold" },
      severity: "warning",
      body: "acme spent $120 of its $100 monthly budget.",
      details: { spentUsd: 120 },
      test: false,
    });
    expect(new Date(bodies[0].firedAt).getTime()).toBeGreaterThan(Date.now() - 60_000);
    const delivered = await rows();
    expect(new Set(hook.deliveryIds())).toEqual(new Set(delivered.map((d) => d.id)));
    expect(hook.received.map((r) => r.headers["x-tollgate-event"]).sort()).toEqual([first, second].sort());
    for (const d of delivered) {
      expect(d).toMatchObject({ status: "delivered", attempts: 1, lastStatus: 200, lastError: null });
      expect(d.deliveredAt).toBeInstanceOf(Date);
      expect(d.leaseUntil).toBeNull();
    }
    expect(outcomes).toEqual(["webhook:delivered", "webhook:delivered"]);
    // Delivered is final: another tick sends nothing.
    await drain(sender());
    expect(hook.received).toHaveLength(2);
  });

  it("a tenant's webhook URL on a loopback address is refused by the address guard without the allowance", async () => {
    await setup();
    const hook = await receiver(() => 200);
    cleanup.push(hook.close);
    const acme = await newTenant("acme");
    const channel = await newChannel(acme, "webhook", { url: hook.url, secret: SECRET });
    await fire(acme, [channel.id], "k1");
    await drain(sender({ transports: transports({ allow: parseAllowList("") }) }));
    expect(hook.received).toHaveLength(0);
    const [d] = await rows();
    expect(d).toMatchObject({ status: "pending", attempts: 1 });
    expect(d!.lastError).toMatch(/refused: 127\.0\.0\.1 is a loopback address/);
  });

  it("Slack gets an incoming-webhook message: a text fallback and header and mrkdwn section blocks", async () => {
    await setup();
    const slack = await receiver(() => 200, "ok");
    cleanup.push(slack.close);
    const acme = await newTenant("acme");
    const channel = await newChannel(acme, "slack", { url: slack.url });
    await fire(acme, [channel.id], "k1", { severity: "critical", body: "Errors <50%> & rising" });
    await drain(sender());
    expect(slack.received).toHaveLength(1);
    expect(slack.received[0]!.headers["content-type"]).toBe("application/json");
    const message = JSON.parse(slack.received[0]!.body);
    expect(message.text).toBe(":rotating_light: [CRITICAL] Spend over budget k1");
    expect(message.blocks).toHaveLength(2);
    expect(message.blocks[0]).toEqual({
      type: "header",
      text: { type: "plain_text", text: ":rotating_light: Spend over budget k1", emoji: true },
    });
    expect(message.blocks[1].type).toBe("section");
    expect(message.blocks[1].text.type).toBe("mrkdwn");
    expect(message.blocks[1].text.text).toContain("Errors &lt;50%&gt; &amp; rising");
    expect(message.blocks[1].text.text).toContain("*Severity:* critical");
    const [d] = await rows();
    expect(d).toMatchObject({ status: "delivered", lastStatus: 200 });
  });

  it("email goes through the SMTP server with the subject, the recipients and a plain-text body", async () => {
    await setup();
    const { messages, port, close } = await smtpSink();
    cleanup.push(close);
    const acme = await newTenant("acme");
    const channel = await newChannel(acme, "email", { to: ["ops@acme.test", "cfo@acme.test"] });
    await fire(acme, [channel.id], "k1");

    // Without an SMTP server the delivery fails, saying how to configure one, and waits for its retry.
    await drain(sender({ transports: transports({ smtpUrl: undefined }) }));
    expect(messages).toHaveLength(0);
    const [waiting] = await rows();
    expect(waiting).toMatchObject({ status: "pending", attempts: 1, lastError: NO_SMTP_ERROR });
    expect(waiting!.nextAttemptAt.getTime()).toBeGreaterThan(Date.now() + 10_000);

    await db.update(alertDelivery).set({ nextAttemptAt: sql`now()` });
    await drain(sender({ transports: transports({ smtpUrl: `smtp://127.0.0.1:${port}` }) }));
    expect(messages).toHaveLength(1);
    const mail = messages[0]!;
    expect(mail.to.sort()).toEqual(["cfo@acme.test", "ops@acme.test"]);
    expect(mail.from).toBe("alerts@test.local");
    expect(mail.raw).toMatch(/^Subject: \[Tollgate\] warning: Spend over budget k1\r$/m);
    expect(mail.raw).toMatch(/^To: ops@acme\.test, cfo@acme\.test\r$/m);
    expect(mail.raw).toMatch(/^Content-Type: text\/plain/m);
    expect(mail.raw).toMatch(/^Content-Type: text\/html/m);
    expect(mail.raw).toContain("acme spent $120 of its $100 monthly budget.");
    const [sent] = await rows();
    expect(sent).toMatchObject({ status: "delivered", attempts: 2, lastError: null });
    expect(mail.raw).toMatch(new RegExp(`^X-Tollgate-Delivery: ${sent!.id}\\r$`, "mi"));
  });

  it("a failing webhook is retried with growing delays until it answers, then delivered", async () => {
    await setup();
    const hook = await receiver((n) => (n <= 2 ? 503 : 200));
    cleanup.push(hook.close);
    const acme = await newTenant("acme");
    const channel = await newChannel(acme, "webhook", { url: hook.url, secret: SECRET });
    await fire(acme, [channel.id], "k1");
    const s = sender({ retry: { baseMs: 1_500, random: () => 0.5 } });
    // By the database's clock: the moment before a try, and how far past it the next try was set.
    const dbNow = async () =>
      Number(
        rowsOf<{ ms: string }>(
          await db.execute(sql`select extract(epoch from clock_timestamp()) * 1000 as ms`),
        )[0]!.ms,
      );
    const retryAfter = async (before: number) => (await rows())[0]!.nextAttemptAt.getTime() - before;

    const before1 = await dbNow();
    await drain(s);
    const [one] = await rows();
    expect(one).toMatchObject({ status: "pending", attempts: 1, lastStatus: 503 });
    expect(one!.lastError).toMatch(/the webhook answered HTTP 503: nope 503/);
    const firstGap = await retryAfter(before1);
    expect(firstGap).toBeGreaterThanOrEqual(1_500);
    expect(firstGap).toBeLessThan(3_000);
    // Not due yet: nothing is claimed.
    expect(await s.tick()).toBe(0);
    await until("the first retry to be due", async () => (await dbNow()) >= one!.nextAttemptAt.getTime());
    const before2 = await dbNow();
    await drain(s);
    const [two] = await rows();
    expect(two).toMatchObject({ status: "pending", attempts: 2, lastStatus: 503 });
    const secondGap = await retryAfter(before2);
    expect(secondGap).toBeGreaterThanOrEqual(3_000);
    expect(secondGap).toBeGreaterThan(firstGap);
    await until("the second retry to be due", async () => (await dbNow()) >= two!.nextAttemptAt.getTime());
    await drain(s);
    const [three] = await rows();
    expect(three).toMatchObject({ status: "delivered", attempts: 3, lastStatus: 200, lastError: null });
    expect(hook.received).toHaveLength(3);
    expect(new Set(hook.deliveryIds()).size).toBe(1);
  });

  it("a webhook that always fails is dead after the channel's tries; a 400 is dead at once", async () => {
    await setup();
    // A failing endpoint that answers a long page: only its start is read and kept as the error.
    const down = await receiver(
      () => 500,
      "ok",
      () => `<html>${"Internal error. ".repeat(20_000)}</html>`,
    );
    const refuses = await receiver(() => 400);
    cleanup.push(down.close, refuses.close);
    const acme = await newTenant("acme");
    const flaky = await newChannel(acme, "webhook", { url: down.url, secret: SECRET, maxAttempts: 3 });
    const strict = await newChannel(acme, "webhook", { url: refuses.url, secret: SECRET });
    await fire(acme, [flaky.id, strict.id], "k1");
    outcomes.length = 0;
    const s = sender({ retry: { baseMs: 20, maxMs: 50 } });
    await until("both deliveries to end", async () => {
      await drain(s);
      return (await rows()).every((d) => d.status !== "pending");
    });
    const byChannel = new Map((await rows()).map((d) => [d.channelId, d]));
    expect(byChannel.get(flaky.id)).toMatchObject({ status: "dead", attempts: 3, lastStatus: 500 });
    expect(byChannel.get(flaky.id)!.lastError).toMatch(/HTTP 500.*\(dead after 3 tries\)/);
    expect(byChannel.get(flaky.id)!.lastError!.length).toBeLessThan(400);
    expect(byChannel.get(strict.id)).toMatchObject({ status: "dead", attempts: 1, lastStatus: 400 });
    expect(byChannel.get(strict.id)!.lastError).toMatch(/HTTP 400.*client error: not tried again/);
    expect(down.received).toHaveLength(3);
    expect(refuses.received).toHaveLength(1);
    expect(outcomes.sort()).toEqual(["webhook:dead", "webhook:dead", "webhook:retry", "webhook:retry"]);
  });

  it("a channel disabled after its alert fired gets nothing: the delivery is dead saying so", async () => {
    await setup();
    const hook = await receiver(() => 200);
    cleanup.push(hook.close);
    const acme = await newTenant("acme");
    const channel = await newChannel(acme, "webhook", { url: hook.url, secret: SECRET });
    await fire(acme, [channel.id], "k1");
    await db.update(alertChannel).set({ enabled: false }).where(eq(alertChannel.id, channel.id));
    await drain(sender());
    expect(hook.received).toHaveLength(0);
    const [d] = await rows();
    expect(d).toMatchObject({ status: "dead", lastError: "the channel was disabled" });
  });

  it("nothing is lost across a restart: a stopped sender's and a crashed sender's deliveries are sent by the next", async () => {
    await setup();
    const hook = await receiver(async () => {
      await new Promise((r) => setTimeout(r, 100));
      return 200;
    });
    cleanup.push(hook.close);
    const acme = await newTenant("acme");
    const channel = await newChannel(acme, "webhook", { url: hook.url, secret: SECRET });
    for (let i = 0; i < 12; i++) await fire(acme, [channel.id], `k${i}`);

    // The first worker sends a few and is stopped (SIGTERM): what it had in flight finishes.
    const first = sender({ slots: 2 });
    first.start();
    await until("the first sends", () => hook.received.length >= 2);
    await first.stop();
    const afterStop = hook.received.length;
    expect(afterStop).toBeLessThan(12);
    // Another one claims three and dies before sending (its leases are left behind) ...
    const crashed = rowsOf<{ id: string }>(
      await db.execute(sql`
      update alert_delivery set lease_until = now() + interval '1 hour', attempts = attempts + 1
      where id in (select id from alert_delivery where status = 'pending' order by next_attempt_at limit 3
                   for update skip locked) returning id`),
    );
    expect(crashed).toHaveLength(3);
    // ... so a new worker leaves them alone while their leases hold ...
    const second = sender({ slots: 4 });
    await until("every unleased delivery to be sent", async () => {
      await drain(second);
      return (await rows()).filter((d) => d.status === "pending").length === 3;
    });
    expect(hook.received).toHaveLength(9);
    // ... and sends them once the leases lapse.
    await db.execute(
      sql`update alert_delivery set lease_until = now() - interval '1 second' where status = 'pending'`,
    );
    await drain(second);

    const all = await rows();
    expect(all.map((d) => d.status)).toEqual(Array(12).fill("delivered"));
    const ids = hook.deliveryIds();
    expect(new Set(ids)).toEqual(new Set(all.map((d) => d.id)));
    expect(ids).toHaveLength(12);
    const crashedIds = new Set(crashed.map((r) => r.id));
    for (const d of all) expect(d.attempts).toBe(crashedIds.has(d.id) ? 2 : 1);
  });

  it("two senders at once never send the same delivery twice", async () => {
    await setup();
    const hook = await receiver(async () => {
      await new Promise((r) => setTimeout(r, 5 + Math.random() * 20));
      return 200;
    });
    cleanup.push(hook.close);
    const acme = await newTenant("acme");
    const channel = await newChannel(acme, "webhook", { url: hook.url, secret: SECRET });
    const n = 40;
    for (let i = 0; i < n; i++) await fire(acme, [channel.id], `k${i}`);
    // On PostgreSQL each sender has its own connection pool, as two workers would.
    let other = db;
    if (kind === "postgres") {
      const handle: DatabaseHandle = await openDatabase({ kind: "postgres", url: test.url!, max: 4 });
      cleanup.push(() => handle.close());
      other = handle.db;
    }
    const a = sender({ slots: 6 });
    const b = sender({ slots: 6 }, other);
    a.start();
    b.start();
    await until("every delivery to be delivered", async () =>
      (await rows()).every((d) => d.status === "delivered"),
    );
    await Promise.all([a.stop(), b.stop()]);
    const ids = hook.deliveryIds();
    expect(ids).toHaveLength(n);
    expect(new Set(ids).size).toBe(n);
    expect((await rows()).every((d) => d.attempts === 1)).toBe(true);
  });

  it("the worker leader's background work sends the deliveries, and wake() sends at once", async () => {
    await setup();
    const hook = await receiver(() => 200);
    cleanup.push(hook.close);
    const acme = await newTenant("acme");
    const channel = await newChannel(acme, "webhook", { url: hook.url, secret: SECRET });
    await fire(acme, [channel.id], "before");
    const app: Container = createContainer({
      database: test.handle,
      demo: false,
      env: { ...process.env, WEB_FETCH_ALLOW: LOOPBACK },
    });
    const work: LeaderWork = backgroundWork(app, { jobs: [], checkMs: 100 });
    cleanup.push(() => app.close());
    cleanup.push(() => work.stop());
    await work.start();
    expect(work.leading).toBe(true);
    await until("the alert fired before start to be sent", () => hook.received.length === 1);
    await fire(acme, [channel.id], "after");
    app.alerts.wake();
    // Well within the 5-second poll: the wake sent it.
    await until("the woken send", () => hook.received.length === 2, 2_000);
    await work.stop();
    await fire(acme, [channel.id], "stopped");
    app.alerts.wake();
    await new Promise((r) => setTimeout(r, 200));
    expect(hook.received).toHaveLength(2);
    const scrape = await app.telemetry.metrics.registry.getSingleMetricAsString(
      "tollgate_alert_deliveries_total",
    );
    expect(scrape).toContain('tollgate_alert_deliveries_total{kind="webhook",outcome="delivered"} 2');
  });

  it("a send test is tried at once and answers its outcome; a failed one is dead, not retried", async () => {
    await setup();
    const hook = await receiver(() => 200);
    const refuses = await receiver(() => 404);
    cleanup.push(hook.close, refuses.close);
    const acme = await newTenant("acme");
    const good = await newChannel(acme, "webhook", { url: hook.url, secret: SECRET });
    const bad = await newChannel(acme, "slack", { url: refuses.url });
    const off = await newChannel(acme, "email", { to: ["ops@acme.test"] });
    await db.update(alertChannel).set({ enabled: false }).where(eq(alertChannel.id, off.id));

    const ok = await sendTestAlert(db, good, { transports: transports() });
    expect(ok).toMatchObject({ delivered: true, status: 200 });
    expect(hook.received).toHaveLength(1);
    const body = JSON.parse(hook.received[0]!.body);
    expect(body).toMatchObject({ test: true, rule: null, tenantId: acme, severity: "info" });
    expect(hook.received[0]!.headers["x-tollgate-delivery"]).toBe(ok.deliveryId);

    const failed = await sendTestAlert(db, bad, { transports: transports() });
    expect(failed).toMatchObject({ delivered: false, status: 404 });
    if (failed.delivered) throw new Error("unreachable");
    expect(failed.error).toMatch(/Slack answered HTTP 404/);
    const [row] = await db.select().from(alertDelivery).where(eq(alertDelivery.id, failed.deliveryId!));
    expect(row).toMatchObject({ status: "dead", attempts: 1 });

    const disabled = await sendTestAlert(db, off, { transports: transports() });
    expect(disabled).toMatchObject({ delivered: false, deliveryId: null });
    if (disabled.delivered) throw new Error("unreachable");
    expect(disabled.error).toMatch(/disabled/);
  });

  it("the delivery log shows a tenant only its own deliveries, the platform only its own, by page and status", async () => {
    await setup();
    const hook = await receiver((n) => (n % 2 ? 200 : 400));
    cleanup.push(hook.close);
    const acme = await newTenant("acme");
    const globex = await newTenant("globex");
    const acmeHook = await newChannel(acme, "webhook", { url: hook.url, secret: SECRET }, "Acme hook");
    const globexHook = await newChannel(globex, "webhook", { url: hook.url, secret: SECRET }, "Globex hook");
    const platformHook = await newChannel(null, "webhook", { url: hook.url, secret: SECRET }, "Ops hook");
    for (let i = 0; i < 5; i++) await fire(acme, [acmeHook.id], `a${i}`);
    await fire(globex, [globexHook.id], "g0");
    await fire(null, [platformHook.id], "p0");
    // A channel of another owner is never delivered to, even when named.
    await fire(acme, [globexHook.id, platformHook.id], "cross");

    const acmePage = await listDeliveries(db, acme, { limit: 50 });
    expect(acmePage.rows).toHaveLength(5);
    expect(acmePage.rows.every((r) => r.tenantId === acme && r.channelName === "Acme hook")).toBe(true);
    expect(acmePage.nextCursor).toBeNull();
    const globexRows = (await listDeliveries(db, globex)).rows;
    expect(globexRows.map((r) => [r.channelName, r.title])).toEqual([
      ["Globex hook", "Spend over budget g0"],
    ]);
    const platformRows = (await listDeliveries(db, null)).rows;
    expect(platformRows.map((r) => [r.tenantId, r.channelName, r.channelKind])).toEqual([
      [null, "Ops hook", "webhook"],
    ]);

    // Pages of two, newest first, each row once.
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await listDeliveries(db, acme, { limit: 2, cursor });
      expect(page.rows.length).toBeLessThanOrEqual(2);
      seen.push(...page.rows.map((r) => r.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(acmePage.rows.map((r) => r.id));
    expect(new Set(seen).size).toBe(5);

    await drain(sender({ slots: 10 }));
    const pending = await listDeliveries(db, acme, { status: "pending" });
    const dead = await listDeliveries(db, acme, { status: "dead" });
    const delivered = await listDeliveries(db, acme, { status: "delivered" });
    expect(pending.rows).toHaveLength(0);
    expect(dead.rows.length + delivered.rows.length).toBe(5);
    expect(dead.rows.every((r) => r.attempts === 1 && /HTTP 400/.test(r.lastError ?? ""))).toBe(true);
    expect(delivered.rows.every((r) => r.deliveredAt instanceof Date && r.lastStatus === 200)).toBe(true);
  });
});
