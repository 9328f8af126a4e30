// The guardrails routes end to end on each database: tenant admins read and replace their tenant's policy;
// members and other tenants cannot; bad rules and patterns RE2 cannot run are refused naming the path; a webhook's
// secret never leaves and survives a PUT without it; the test endpoint finds hits; and a save reaches the cached
// policy of this process at once and of another replica over the cluster bus.
import { and, asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { adminChange, guardrailPolicy } from "@/db/schema";
import { GuardrailPolicyCache, loadGuardrailPolicy, readGuardrailPolicy } from "@/features/guardrails/server";
import { ClusterBus, setProcessBus } from "@/lib/cluster";
import { useSeededAppDatabase } from "../helpers/app-db";
import { postgresAdminUrl, testDbKinds } from "../helpers/db";
import { session } from "../helpers/session";

vi.mock("@/lib/auth/session", () => import("../helpers/session"));

const policyRoute = await import("@/app/api/governance/guardrails/route");
const testRoute = await import("@/app/api/governance/guardrails/test/route");

const SECRET = "whsec-0123456789abcdefghijklmnop";
const request = (method: string, body?: unknown) =>
  new Request("http://app/api/governance/guardrails", {
    method,
    body: body === undefined ? undefined : JSON.stringify(body),
    headers: { "content-type": "application/json" },
  });

const cardRule = {
  id: "cards",
  name: "No card numbers",
  stage: "input",
  check: { type: "regex", pattern: "\\b\\d{4}(?: ?\\d{4}){3}\\b", label: "card" },
  action: "redact",
};
const codenames = {
  id: "codenames",
  name: "Codenames",
  stage: "input",
  check: { type: "deny_list", terms: ["Project Falcon", "a.b"], label: "codename" },
  action: "block",
  onError: "open",
};
const hook = (check: Record<string, unknown> = {}) => ({
  id: "hook",
  name: "Policy service",
  stage: "output",
  check: { type: "webhook", url: "https://policy.example.com/check", timeoutMs: 2000, ...check },
  action: "block",
});

describe.each(testDbKinds)("guardrails routes on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let acme: string;
  /** Every body a route answered, to prove the secret never leaves. */
  const answered: string[] = [];

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    acme = await app.tenantId("acme");
  });
  afterAll(async () => {
    await app.close();
    expect(answered.join("\n")).not.toContain("0123456789abcdefghijklmnop");
  });
  beforeEach(async () => {
    await app.db.delete(guardrailPolicy);
    await as("admin@acme.test");
  });

  const as = async (email: string, slug = "acme") => {
    session.claims = { userId: await app.userId(email), tenantId: await app.tenantId(slug) };
  };
  const read = async (res: Response) => {
    const text = await res.text();
    answered.push(text);
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const get = async () => read(await policyRoute.GET(request("GET"), { params: Promise.resolve({}) }));
  const put = async (body: unknown) =>
    read(await policyRoute.PUT(request("PUT", body), { params: Promise.resolve({}) }));
  const test = async (body: unknown) =>
    read(await testRoute.POST(request("POST", body), { params: Promise.resolve({}) }));

  it("answers an empty policy for a tenant that never set one", async () => {
    expect(await get()).toEqual({ status: 200, body: { rules: [], updatedAt: null } });
  });

  it("lets an admin replace the policy and read it back in order, with defaults filled in and the change logged", async () => {
    const saved = await put({ rules: [codenames, cardRule], holdBackChars: 32 });
    expect(saved.status).toBe(200);
    const got = await get();
    expect(got.body).toEqual(saved.body);
    expect(got.body.rules.map((r: { id: string }) => r.id)).toEqual(["codenames", "cards"]);
    expect(got.body.rules[1]).toMatchObject({ onError: "closed", enabled: true });
    expect(got.body.holdBackChars).toBe(32);
    expect(typeof got.body.updatedAt).toBe("string");

    const changes = await app.db
      .select()
      .from(adminChange)
      .where(and(eq(adminChange.objectType, "guardrail_policy"), eq(adminChange.objectId, acme)))
      .orderBy(asc(adminChange.createdAt));
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({
      action: "guardrails.updated",
      before: null,
      actorEmail: "admin@acme.test",
    });
    // Saving the same policy again changes nothing, so nothing more is logged.
    await put({ rules: [codenames, cardRule], holdBackChars: 32 });
    const again = await app.db
      .select()
      .from(adminChange)
      .where(and(eq(adminChange.objectType, "guardrail_policy"), eq(adminChange.objectId, acme)));
    expect(again).toHaveLength(1);
  });

  it("refuses members of the tenant, reading or writing", async () => {
    await put({ rules: [cardRule] });
    await as("member@acme.test");
    expect((await get()).status).toBe(403);
    expect((await put({ rules: [] })).status).toBe(403);
    expect((await test({ text: "x", stage: "input" })).status).toBe(403);
    expect(await readGuardrailPolicy(app.db, acme)).toMatchObject({ rules: [{ id: "cards" }] });
  });

  it("keeps each tenant's policy to its own admins", async () => {
    await put({ rules: [cardRule] });
    await as("admin@globex.test", "globex");
    expect((await get()).body.rules).toEqual([]);
    expect((await put({ rules: [codenames] })).status).toBe(200);
    // Globex's admin wrote Globex's policy; Acme's is as Acme's admin left it.
    expect((await readGuardrailPolicy(app.db, acme)).rules.map((r) => r.id)).toEqual(["cards"]);
    // A session naming Acme gives a Globex admin no way in: the guard falls back to the tenant they belong to.
    session.claims = { userId: await app.userId("admin@globex.test"), tenantId: acme };
    expect((await get()).body.rules.map((r: { id: string }) => r.id)).toEqual(["codenames"]);
    expect((await put({ rules: [] })).status).toBe(200);
    expect((await readGuardrailPolicy(app.db, acme)).rules.map((r) => r.id)).toEqual(["cards"]);
    expect((await readGuardrailPolicy(app.db, await app.tenantId("globex"))).rules).toEqual([]);
  });

  it("refuses invalid rules naming the path, and stores nothing", async () => {
    await put({ rules: [cardRule] });
    const bad = await put({
      rules: [cardRule, { ...codenames, stage: "input", check: { type: "json_schema" } }],
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error.code).toBe("validation_failed");
    expect(Object.keys(bad.body.error.fields)).toEqual(["rules.1.stage"]);
    const twice = await put({ rules: [cardRule, cardRule] });
    expect(Object.keys(twice.body.error.fields)).toEqual(["rules.1.id"]);
    const http = await put({ rules: [hook({ url: "http://policy.example.com" })] });
    expect(Object.keys(http.body.error.fields)).toEqual(["rules.0.check.url"]);
    expect((await get()).body.rules.map((r: { id: string }) => r.id)).toEqual(["cards"]);
  });

  it("refuses a pattern RE2 cannot run with 422, naming the rule and RE2's reason", async () => {
    const res = await put({
      rules: [
        cardRule,
        { ...cardRule, id: "echo", name: "Doubled words", check: { type: "regex", pattern: "(\\w+) \\1" } },
      ],
    });
    expect(res.status).toBe(422);
    expect(res.body.error.message).toContain('"Doubled words" (echo)');
    expect(res.body.error.fields["rules.1.check.pattern"][0]).toMatch(/backreference|escape/i);
    expect(res.body.error.fields["rules.1.check.pattern"][0]).toContain("RE2");
    expect((await get()).body.rules).toEqual([]);
  });

  it("never answers a webhook's secret, and keeps it when a PUT leaves it out", async () => {
    const saved = await put({ rules: [hook({ secret: SECRET })] });
    expect(saved.status).toBe(200);
    expect(saved.body.rules[0].check).toEqual({
      type: "webhook",
      url: "https://policy.example.com/check",
      timeoutMs: 2000,
      secretSet: true,
    });
    expect((await get()).body.rules[0].check.secretSet).toBe(true);

    // The page sends back what it got, without the secret: the stored one stays.
    const resent = await put({ rules: [cardRule, hook({ timeoutMs: 3000 })] });
    expect(resent.body.rules[1].check).toMatchObject({ secretSet: true, timeoutMs: 3000 });
    const stored = await readGuardrailPolicy(app.db, acme);
    expect(stored.rules[1]?.check).toMatchObject({ type: "webhook", secret: SECRET, timeoutMs: 3000 });
    // A new secret replaces it; a rule of another id does not inherit it.
    await put({ rules: [hook({ secret: "whsec-new" }), { ...hook(), id: "hook2" }] });
    const replaced = await readGuardrailPolicy(app.db, acme);
    expect(replaced.rules[0]?.check).toMatchObject({ secret: "whsec-new" });
    expect(replaced.rules[1]?.check).not.toHaveProperty("secret");
    expect((await get()).body.rules[1].check.secretSet).toBe(false);

    const logged = await app.db
      .select()
      .from(adminChange)
      .where(eq(adminChange.objectType, "guardrail_policy"));
    expect(JSON.stringify(logged)).not.toContain("0123456789abcdefghijklmnop");
    expect(JSON.stringify(logged)).not.toContain("whsec-new");
  });

  it("tests a text against the saved rules of one stage: hits, outcome and the redacted text", async () => {
    await put({
      rules: [
        cardRule,
        codenames,
        { ...cardRule, id: "off", name: "Off", enabled: false, check: { type: "regex", pattern: "hello" } },
      ],
    });
    const text = "hello, pay 4111 1111 1111 1111 for project falcon";
    const res = await test({ text, stage: "input" });
    expect(res.status).toBe(200);
    expect(res.body.outcome).toBe("blocked");
    expect(res.body.hits).toEqual([
      {
        ruleId: "cards",
        ruleName: "No card numbers",
        entity: "card",
        start: 11,
        end: 30,
        confidence: 1,
        action: "redact",
      },
      {
        ruleId: "codenames",
        ruleName: "Codenames",
        entity: "codename",
        start: 35,
        end: 49,
        confidence: 1,
        action: "block",
      },
    ]);
    // A blocked text goes nowhere, so it comes back as it was; without the block, the card is redacted.
    expect(res.body.text).toBe(text);
    await put({ rules: [cardRule] });
    const redacted = await test({ text, stage: "input" });
    expect(redacted.body).toMatchObject({
      outcome: "redacted",
      text: "hello, pay [CARD] for project falcon",
    });
    await put({ rules: [cardRule, codenames] });
    // The deny list's terms are literal text: "a.b" does not match "axb".
    expect((await test({ text: "axb", stage: "input" })).body).toEqual({
      hits: [],
      outcome: "passed",
      text: "axb",
    });
    // Rules of another stage do not apply.
    expect((await test({ text, stage: "output" })).body.hits).toEqual([]);
    expect((await test({ text, stage: "nowhere" })).status).toBe(422);
  });

  it("a save is seen at once by the policy this process caches for calls", async () => {
    expect((await loadGuardrailPolicy(app.db, acme)).rules).toEqual([]);
    await put({ rules: [cardRule] });
    expect((await loadGuardrailPolicy(app.db, acme)).rules.map((r) => r.id)).toEqual(["cards"]);
    await put({ rules: [] });
    expect((await loadGuardrailPolicy(app.db, acme)).rules).toEqual([]);
  });
});

describe.each(postgresAdminUrl ? ["postgres" as const] : [])(
  "guardrail policies between two replicas on %s",
  (kind) => {
    let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
    const buses: ClusterBus[] = [];
    beforeAll(async () => {
      app = await useSeededAppDatabase(kind);
    });
    afterAll(async () => {
      setProcessBus(undefined);
      for (const bus of buses) await bus.close();
      await app.close();
    });

    it("a save on one replica drops the other's cached copy over the bus, long before the cache expires", async () => {
      const replica = async (name: string) => {
        const bus = new ClusterBus({
          postgresUrl: app.url!,
          clientName: `tollgate-guardrails-test-${name}`,
          retryMs: 100,
        });
        buses.push(bus);
        bus.start();
        await bus.ready;
        return bus;
      };
      const here = await replica("a");
      const there = await replica("b");
      setProcessBus(here);
      const acme = await app.tenantId("acme");
      session.claims = { userId: await app.userId("admin@acme.test"), tenantId: acme };
      // The other replica's cache, trusting what it read for a minute: only the bus can make it read again.
      const otherDb = await app.secondPool();
      const other = new GuardrailPolicyCache(60_000);
      other.listenTo(there);
      const load = () => other.get(acme, () => readGuardrailPolicy(otherDb, acme));
      expect((await load()).rules).toEqual([]);

      const res = await policyRoute.PUT(request("PUT", { rules: [cardRule] }), {
        params: Promise.resolve({}),
      });
      expect(res.status).toBe(200);
      const deadline = Date.now() + 3_000;
      let seen = (await load()).rules.length;
      while (seen === 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        seen = (await load()).rules.length;
      }
      expect(seen).toBe(1);
    });
  },
);
