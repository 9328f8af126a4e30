import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { apiKey, sysAgentTurn, usageDaily } from "@/db/schema";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";
import { schemaJson as json } from "../helpers/schema-api";
import { session } from "../helpers/session";

vi.mock("@/lib/auth/session", () => import("../helpers/session"));

const values = async (path: string) => {
  const { status, body } = await json(path);
  expect(status, JSON.stringify(body)).toBe(200);
  return (body.values as { value: string }[]).map((v) => v.value);
};
const ids = async (path: string) => {
  const { status, body } = await json(path);
  expect(status, JSON.stringify(body)).toBe(200);
  return (body.rows as { id: string }[]).map((r) => r.id);
};

describe.each(testDbKinds)("filter suggestions, contains-matching and time presets on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  const turn: Record<string, string> = {};
  const now = Date.now();
  const as = async (email: string, slug?: string) => {
    session.claims = { userId: await app.userId(email), tenantId: slug ? await app.tenantId(slug) : null };
  };

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    const acme = await app.tenantId("acme");
    const globex = await app.tenantId("globex");
    const acmeUser = await app.userId("member@acme.test");
    const globexUser = await app.userId("member@globex.test");
    const acmeAdmin = await app.userId("admin@acme.test");
    const globexAdmin = await app.userId("admin@globex.test");
    await app.db.insert(apiKey).values([
      { tenantId: acme, name: "acme-billing", prefix: "tg_a1", secretHash: "h-a1", createdBy: acmeAdmin },
      {
        tenantId: globex,
        name: "globex-secret-key",
        prefix: "tg_g1",
        secretHash: "h-g1",
        createdBy: globexAdmin,
      },
    ]);
    const rows = [
      // Acme: two GPT models, one Claude; Globex: a model and an end user Acme must never be offered.
      {
        key: "acmeOld",
        tenantId: acme,
        userId: acmeUser,
        model: "gpt-4o-mini",
        ago: 3 * 86_400_000,
        endUser: "ada",
        tool: "query_orders",
      },
      {
        key: "acmeHour",
        tenantId: acme,
        userId: acmeUser,
        model: "GPT-4.1",
        ago: 30 * 60_000,
        endUser: "bob",
        tool: "web_fetch",
      },
      {
        key: "acmeDay",
        tenantId: acme,
        userId: acmeUser,
        model: "claude-haiku-4-5",
        ago: 5 * 3_600_000,
        endUser: null,
        tool: null,
      },
      {
        key: "globex",
        tenantId: globex,
        userId: globexUser,
        model: "gpt-globex-private",
        ago: 60_000,
        endUser: "globex-customer",
        tool: "globex_tool",
      },
    ];
    for (const r of rows) {
      const id = crypto.randomUUID();
      turn[r.key] = id;
      await app.db.insert(sysAgentTurn).values({
        id,
        tenantId: r.tenantId,
        userId: r.userId,
        source: "api",
        requestedModel: r.model,
        servedModel: r.model,
        servedAdapter: "openai",
        status: "success",
        cost: "0.001",
        inputTokens: 10,
        outputTokens: 5,
        startedAt: new Date(now - r.ago),
        endUser: r.endUser,
        tags: r.tenantId === globex ? ["globex-tag"] : ["acme-tag"],
        toolTrace: r.tool ? [{ name: r.tool, durationMs: 5, ok: true }] : [],
      });
      await app.db.insert(usageDaily).values({
        tenantId: r.tenantId,
        day: new Date(now - r.ago).toISOString().slice(0, 10),
        userId: r.userId,
        source: "api",
        servedAdapter: "openai",
        servedModel: r.model,
        requests: 1,
        inputTokens: 10,
        outputTokens: 5,
        cost: "0.001",
      });
    }
  });
  afterAll(async () => {
    await app.close();
  });
  beforeEach(() => {
    session.claims = null;
  });

  it("offers a tenant only its own values, contained and case-insensitive", async () => {
    await as("admin@acme.test", "acme");
    expect(await values("agent-turns/suggest?field=servedModel&q=gpt")).toEqual(["GPT-4.1", "gpt-4o-mini"]);
    expect(await values("agent-turns/suggest?field=servedModel&q=")).toEqual([
      "claude-haiku-4-5",
      "GPT-4.1",
      "gpt-4o-mini",
    ]);
    expect(await values("agent-turns/suggest?field=endUser&q=")).toEqual(["ada", "bob"]);
    expect(await values("agent-turns/suggest?field=tool&q=")).toEqual(["query_orders", "web_fetch"]);
    expect(await values("agent-turns/suggest?field=tag&q=")).toEqual(["acme-tag"]);
    expect(await values("agent-turns/suggest?field=apiKey&q=")).toEqual(["acme-billing"]);
    expect(await values("agent-turns/suggest?field=user&q=acme")).toEqual(["member@acme.test"]);
    expect(await values("agent-cost/suggest?field=servedModel&q=GPT")).toEqual(["GPT-4.1", "gpt-4o-mini"]);
    // Globex's values are not there even when asked for by name.
    expect(await values("agent-turns/suggest?field=servedModel&q=globex")).toEqual([]);
    expect(await values("agent-turns/suggest?field=endUser&q=globex")).toEqual([]);
    expect(await values("agent-turns/suggest?field=apiKey&q=globex")).toEqual([]);
    expect(await values("agent-turns/suggest?field=user&q=globex")).toEqual([]);
    expect(await values("agent-turns/suggest?field=tool&q=globex")).toEqual([]);
  });

  it("answers 422 for a field without suggestions, including the tenant names for a tenant admin", async () => {
    await as("admin@acme.test", "acme");
    for (const field of ["conversationId", "nope", "tenant", "__proto__"]) {
      const { status, body } = await json(`agent-turns/suggest?field=${field}&q=a`);
      expect(status).toBe(422);
      expect(body.error.message).toBe(`no suggestions for "${field}"`);
    }
    expect((await json("agent-turns/suggest?q=a")).status).toBe(422);
    expect((await json(`agent-turns/suggest?field=servedModel&q=${"x".repeat(201)}`)).status).toBe(422);
    expect((await json("agent-turns/suggest?field=servedModel&limit=0")).status).toBe(422);
    await as("member@acme.test", "acme");
    expect((await json("agent-turns/suggest?field=servedModel&q=gpt")).status).toBe(403);
  });

  it("gives the super admin tenant names, and filters rows by a tenant's name", async () => {
    await as("root@tollgate.test");
    expect(await values("agent-turns/suggest?field=tenant&q=glo")).toEqual(["Globex"]);
    expect(await values("agent-turns/suggest?field=servedModel&q=gpt")).toEqual([
      "GPT-4.1",
      "gpt-4o-mini",
      "gpt-globex-private",
    ]);
    expect(await ids("agent-turns/rows?f.tenant=globex")).toEqual([turn.globex]);
    expect(new Set(await ids("agent-turns/rows?f.tenant=ACM"))).toEqual(
      new Set([turn.acmeOld, turn.acmeHour, turn.acmeDay]),
    );
  });

  it("matches text filters by containment, ignoring case, with LIKE's wildcards taken literally", async () => {
    await as("admin@acme.test", "acme");
    expect(new Set(await ids("agent-turns/rows?f.servedModel=gpt"))).toEqual(
      new Set([turn.acmeOld, turn.acmeHour]),
    );
    expect(await ids("agent-turns/rows?f.servedModel=HAIKU")).toEqual([turn.acmeDay]);
    expect(await ids("agent-turns/rows?f.servedModel=gpt%25mini")).toEqual([]);
    expect(await ids("agent-turns/rows?f.tool=fetch")).toEqual([turn.acmeHour]);
    // The tenant filter by name narrows nothing for a tenant's own admin: Globex stays out.
    expect(await ids("agent-turns/rows?f.tenant=globex&f.servedModel=globex")).toEqual([]);
  });

  it("filters by a tag exactly, resolved first: a tag no turn of the tenant carries reads nothing", async () => {
    await as("admin@acme.test", "acme");
    expect(new Set(await ids("agent-turns/rows?f.tag=acme-tag"))).toEqual(
      new Set([turn.acmeOld, turn.acmeHour, turn.acmeDay]),
    );
    expect(await ids("agent-turns/rows?f.tag=acme")).toEqual([]);
    expect(await ids("agent-turns/rows?f.tag=no-such-tag")).toEqual([]);
    expect((await json("agent-turns/count?f.tag=no-such-tag")).body).toMatchObject({ count: 0 });
    // Another tenant's tag is not the caller's to find, resolved or not.
    expect(await ids("agent-turns/rows?f.tag=globex-tag")).toEqual([]);
    expect((await json("agent-turns/metrics?f.tag=globex-tag")).body.metrics).toMatchObject({ requests: 0 });
    await as("root@tollgate.test");
    expect(await ids("agent-turns/rows?f.tag=globex-tag")).toEqual([turn.globex]);
    expect(await ids("agent-turns/rows?f.tag=no-such-tag")).toEqual([]);
  });

  it("bounds rows by a preset's ISO time, not only by whole days", async () => {
    await as("admin@acme.test", "acme");
    const since = (ms: number) => new Date(now - ms).toISOString().replace(/\.\d{3}Z$/, "Z");
    expect(await ids(`agent-turns/rows?f.startedAt.from=${since(3_600_000)}`)).toEqual([turn.acmeHour]);
    expect(await ids(`agent-turns/rows?f.startedAt.from=${since(86_400_000)}`)).toEqual([
      turn.acmeHour,
      turn.acmeDay,
    ]);
    expect(
      await ids(
        `agent-turns/rows?f.startedAt.from=${since(86_400_000)}&f.startedAt.to=${encodeURIComponent(since(3_600_000))}`,
      ),
    ).toEqual([turn.acmeDay]);
    // Daily rollups: a preset's time covers its whole UTC day, so the day three days ago still counts.
    const { body } = await json(`agent-cost/metrics?f.day.from=${since(3 * 86_400_000 + 60_000)}`);
    expect(body.metrics.requests).toBe(3);
  });
});
