// The alerts routes end to end on each database: tenant admins manage their tenant's rules and channels, the super
// admin the platform's; members are refused and another tenant's rows are not found; bad input is a 422 naming
// the field; channel secrets never leave and survive a PATCH without them; every change is logged; and a test send
// shows up in the delivery log.
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { adminChange, alertChannel, alertRule } from "@/db/schema";
import { PLATFORM_CHANGE_TENANT } from "@/features/alerts/server";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";
import { session } from "../helpers/session";

vi.mock("@/lib/auth/session", () => import("../helpers/session"));

const rulesRoute = await import("@/app/api/alerts/rules/route");
const ruleRoute = await import("@/app/api/alerts/rules/[id]/route");
const channelsRoute = await import("@/app/api/alerts/channels/route");
const channelRoute = await import("@/app/api/alerts/channels/[id]/route");
const testRoute = await import("@/app/api/alerts/channels/[id]/test/route");
const deliveriesRoute = await import("@/app/api/alerts/deliveries/route");

const SECRET = "whsec-0123456789abcdefghijklmnop";
const SLACK = "https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXsecretpath";
const webhook = {
  kind: "webhook",
  name: "Ops webhook",
  config: { url: "https://ops.example.com/alerts", secret: SECRET },
};

type Handler = (req: Request, segment: { params: Promise<Record<string, string>> }) => Promise<Response>;

describe.each(testDbKinds)("alerts routes on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let acme: string;
  /** Every body a route answered, to prove the secrets never leave. */
  const answered: string[] = [];

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    acme = await app.tenantId("acme");
  });
  afterAll(async () => {
    await app.close();
    const all = answered.join("\n");
    expect(all).not.toContain("0123456789abcdefghijklmnop");
    expect(all).not.toContain("secretpath");
  });
  beforeEach(async () => {
    await app.db.delete(alertRule);
    await app.db.delete(alertChannel);
    await as("admin@acme.test");
  });

  const as = async (email: string, slug: string | null = "acme") => {
    session.claims = {
      userId: await app.userId(email),
      tenantId: slug ? await app.tenantId(slug) : null,
    };
  };
  const call = async (
    handler: Handler,
    method: string,
    {
      body,
      params = {},
      query = "",
    }: { body?: unknown; params?: Record<string, string>; query?: string } = {},
  ) => {
    const res = await handler(
      new Request(`http://app/api/alerts${query}`, {
        method,
        body: body === undefined ? undefined : JSON.stringify(body),
        headers: { "content-type": "application/json" },
      }),
      { params: Promise.resolve(params) },
    );
    const text = await res.text();
    answered.push(text);
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const newChannel = async (input: unknown = webhook, query = "") =>
    call(channelsRoute.POST as Handler, "POST", { body: input, query });
  const newRule = async (input: unknown, query = "") =>
    call(rulesRoute.POST as Handler, "POST", { body: input, query });

  it("creates a webhook channel and a rule on it, lists them with the secret hidden, and logs each change", async () => {
    const created = await newChannel();
    expect(created.status).toBe(201);
    expect(created.body.channel).toMatchObject({
      name: "Ops webhook",
      kind: "webhook",
      enabled: true,
      target: "https://ops.example.com/alerts",
      secretSet: true,
      config: { url: "https://ops.example.com/alerts", maxAttempts: 6 },
    });
    const channelId = created.body.channel.id as string;
    const rule = await newRule({ name: "Budget", kind: "budget_threshold", channelIds: [channelId] });
    expect(rule.status).toBe(201);
    expect(rule.body.rule).toMatchObject({
      kind: "budget_threshold",
      params: { thresholds: [50, 80, 100], scope: "any", period: "monthly", limit: "hard" },
      channelIds: [channelId],
      enabled: true,
      lastFiredAt: null,
    });
    const listed = await call(rulesRoute.GET as Handler, "GET");
    expect(listed.body.rules).toHaveLength(1);
    const channels = await call(channelsRoute.GET as Handler, "GET");
    expect(channels.body.channels).toHaveLength(1);
    expect(JSON.stringify(channels.body)).not.toContain(SECRET);

    const changes = await app.db
      .select()
      .from(adminChange)
      .where(and(eq(adminChange.tenantId, acme), eq(adminChange.actorEmail, "admin@acme.test")));
    const ours = changes.filter((c) => c.objectType.startsWith("alert_"));
    expect(ours.map((c) => [c.action, c.objectId])).toEqual(
      expect.arrayContaining([
        ["alert_channel.created", channelId],
        ["alert_rule.created", rule.body.rule.id],
      ]),
    );
    expect(JSON.stringify(ours)).not.toContain("0123456789abcdefghijklmnop");
  });

  it("a PATCH without the secret or the Slack URL keeps them; a new one replaces it", async () => {
    const hook = (await newChannel()).body.channel.id as string;
    const patched = await call(channelRoute.PATCH as Handler, "PATCH", {
      params: { id: hook },
      body: { name: "Renamed", config: { url: "https://ops.example.com/v2?token=t0k3n" } },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.channel).toMatchObject({
      name: "Renamed",
      secretSet: true,
      target: "https://ops.example.com/v2?…",
    });
    const [row] = await app.db.select().from(alertChannel).where(eq(alertChannel.id, hook));
    expect(row!.config).toMatchObject({ url: "https://ops.example.com/v2?token=t0k3n", secret: SECRET });

    const slack = await newChannel({ kind: "slack", name: "Slack", config: { url: SLACK } });
    expect(slack.body.channel).toMatchObject({
      target: "https://hooks.slack.com/…",
      secretSet: true,
      config: { maxAttempts: 6 },
    });
    const id = slack.body.channel.id as string;
    await call(channelRoute.PATCH as Handler, "PATCH", {
      params: { id },
      body: { config: { maxAttempts: 2 } },
    });
    const [kept] = await app.db.select().from(alertChannel).where(eq(alertChannel.id, id));
    expect(kept!.config).toEqual({ url: SLACK, maxAttempts: 2 });

    const updates = await app.db
      .select()
      .from(adminChange)
      .where(
        and(eq(adminChange.objectType, "alert_channel"), eq(adminChange.action, "alert_channel.updated")),
      );
    expect(updates).toHaveLength(2);
    expect(JSON.stringify(updates)).not.toContain("secretpath");
  });

  it("refuses bad input with a 422 naming the field", async () => {
    const short = await newChannel({
      ...webhook,
      config: { url: "https://ops.example.com", secret: "short" },
    });
    expect(short.status).toBe(422);
    expect(Object.keys(short.body.error.fields)).toEqual(["config.secret"]);
    const badKind = await newRule({ name: "x", kind: "weather" });
    expect(badKind.status).toBe(422);
    expect(badKind.body.error.fields).toHaveProperty("kind");
    const badParams = await newRule({ name: "x", kind: "failure_rate", params: { percent: 0, window: 5 } });
    expect(badParams.status).toBe(422);
    expect(Object.keys(badParams.body.error.fields).sort()).toEqual(["params", "params.percent"]);
    const noName = await newRule({ name: " ", kind: "key_expiring" });
    expect(noName.body.error.fields).toHaveProperty("name");
    const subject = await newRule({ name: "x", kind: "budget_threshold", params: { subjectId: acme } });
    expect(subject.body.error.fields).toHaveProperty(["params.subjectId"]);

    const rule = (await newRule({ name: "Keys", kind: "key_expiring" })).body.rule;
    const patch = await call(ruleRoute.PATCH as Handler, "PATCH", {
      params: { id: rule.id },
      body: { params: { days: 0 } },
    });
    expect(patch.status).toBe(422);
    expect(patch.body.error.fields).toHaveProperty(["params.days"]);
    const platformKind = await newRule({ name: "x", kind: "key_expiring" }, "?scope=platform");
    expect(platformKind.status).toBe(403);
  });

  it("keeps tenants apart: another tenant's channel cannot be named, read, changed or tested", async () => {
    await as("admin@globex.test", "globex");
    const theirs = (await newChannel()).body.channel.id as string;
    const theirRule = (await newRule({ name: "Theirs", kind: "key_expiring" })).body.rule.id as string;
    await as("admin@acme.test");
    const named = await newRule({ name: "x", kind: "key_expiring", channelIds: [theirs] });
    expect(named.status).toBe(422);
    expect(named.body.error.fields).toHaveProperty("channelIds");
    expect((await call(channelsRoute.GET as Handler, "GET")).body.channels).toEqual([]);
    expect((await call(rulesRoute.GET as Handler, "GET")).body.rules).toEqual([]);
    const params = { id: theirs };
    expect((await call(channelRoute.PATCH as Handler, "PATCH", { params, body: { name: "x" } })).status).toBe(
      404,
    );
    expect((await call(channelRoute.DELETE as Handler, "DELETE", { params })).status).toBe(404);
    expect((await call(testRoute.POST as Handler, "POST", { params })).status).toBe(404);
    expect((await call(ruleRoute.DELETE as Handler, "DELETE", { params: { id: theirRule } })).status).toBe(
      404,
    );
    const mine = (await newRule({ name: "Mine", kind: "key_expiring" })).body.rule.id as string;
    const patched = await call(ruleRoute.PATCH as Handler, "PATCH", {
      params: { id: mine },
      body: { channelIds: [theirs] },
    });
    expect(patched.status).toBe(422);
  });

  it("refuses members (403) and tenant admins on the platform's alerts (403)", async () => {
    await as("member@acme.test");
    expect((await call(rulesRoute.GET as Handler, "GET")).status).toBe(403);
    expect((await call(channelsRoute.GET as Handler, "GET")).status).toBe(403);
    expect((await newChannel()).status).toBe(403);
    expect((await call(deliveriesRoute.GET as Handler, "GET")).status).toBe(403);
    await as("admin@acme.test");
    expect((await call(rulesRoute.GET as Handler, "GET", { query: "?scope=platform" })).status).toBe(403);
  });

  it("lets the super admin manage platform rules and channels, logged under the nil tenant", async () => {
    await as("root@tollgate.test", null);
    const channel = await newChannel(webhook, "?scope=platform");
    expect(channel.status).toBe(201);
    const rule = await newRule(
      { name: "Breakers", kind: "breaker_open", channelIds: [channel.body.channel.id] },
      "?scope=platform",
    );
    expect(rule.status).toBe(201);
    const [row] = await app.db.select().from(alertRule).where(eq(alertRule.id, rule.body.rule.id));
    expect(row!.tenantId).toBeNull();
    const logged = await app.db
      .select()
      .from(adminChange)
      .where(
        and(eq(adminChange.tenantId, PLATFORM_CHANGE_TENANT), eq(adminChange.objectId, rule.body.rule.id)),
      );
    expect(logged.map((c) => c.action)).toEqual(["alert_rule.created"]);
    // A tenant's channel is not the platform's.
    await as("admin@acme.test");
    const acmeChannel = (await newChannel()).body.channel.id as string;
    await as("root@tollgate.test", null);
    const crossed = await newRule(
      { name: "x", kind: "breaker_open", channelIds: [acmeChannel] },
      "?scope=platform",
    );
    expect(crossed.status).toBe(422);
    // Without a tenant chosen, the tenant scope asks for one.
    expect((await call(rulesRoute.GET as Handler, "GET")).status).toBe(400);
    const removed = await call(ruleRoute.DELETE as Handler, "DELETE", {
      params: { id: rule.body.rule.id },
      query: "?scope=platform",
    });
    expect(removed.status).toBe(204);
    expect((await call(rulesRoute.GET as Handler, "GET", { query: "?scope=platform" })).body.rules).toEqual(
      [],
    );
  });

  it("sends a test to a channel and shows its delivery in the log; deleting a channel takes it off its rules", async () => {
    const hook = (await newChannel()).body.channel.id as string;
    const sent = await call(testRoute.POST as Handler, "POST", { params: { id: hook } });
    expect(sent.status).toBe(200);
    expect(["pending", "delivered", "dead"]).toContain(sent.body.status);
    const log = await call(deliveriesRoute.GET as Handler, "GET", { query: "?limit=10" });
    expect(log.body.deliveries).toHaveLength(1);
    expect(log.body.deliveries[0]).toMatchObject({
      id: sent.body.deliveryId,
      channelName: "Ops webhook",
      channelKind: "webhook",
      eventTitle: "Test alert from Tollgate",
    });
    expect((await call(deliveriesRoute.GET as Handler, "GET", { query: "?limit=0" })).status).toBe(422);
    await as("admin@globex.test", "globex");
    expect((await call(deliveriesRoute.GET as Handler, "GET")).body.deliveries).toEqual([]);
    await as("admin@acme.test");

    const rule = (await newRule({ name: "Keys", kind: "key_expiring", channelIds: [hook] })).body.rule.id;
    expect((await call(channelRoute.DELETE as Handler, "DELETE", { params: { id: hook } })).status).toBe(204);
    const [after] = (await call(rulesRoute.GET as Handler, "GET")).body.rules;
    expect(after).toMatchObject({ id: rule, channelIds: [] });
  });
});
