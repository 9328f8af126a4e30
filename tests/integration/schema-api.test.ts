import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { sysAgentAudit, sysAgentTurn, usageDaily } from "@/db/schema";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";
import { schemaGet as get, schemaJson as json } from "../helpers/schema-api";
import { session } from "../helpers/session";

vi.mock("@/lib/auth/session", () => import("../helpers/session"));

describe.each(testDbKinds)("the schema pages' API on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  const ids: Record<string, string> = {};
  const as = async (email: string, slug?: string) => {
    session.claims = { userId: await app.userId(email), tenantId: slug ? await app.tenantId(slug) : null };
  };

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    const acme = await app.tenantId("acme");
    const globex = await app.tenantId("globex");
    const acmeUser = await app.userId("member@acme.test");
    const globexUser = await app.userId("member@globex.test");
    const day = (n: number) => new Date(Date.UTC(2026, 10, 20 + n, 12));
    const turns = [
      {
        tenantId: acme,
        userId: acmeUser,
        status: "success",
        servedModel: "gpt-4o-mini",
        cost: "0.001",
        inputTokens: 100,
        at: day(0),
        tool: "query_orders",
      },
      {
        tenantId: acme,
        userId: acmeUser,
        status: "failed",
        servedModel: "gpt-4o-mini",
        cost: "0",
        inputTokens: 50,
        at: day(1),
        tool: null,
      },
      {
        tenantId: acme,
        userId: acmeUser,
        status: "success",
        servedModel: "claude-haiku-4-5",
        cost: "0.002",
        inputTokens: 200,
        at: day(2),
        tool: "web_fetch",
      },
      {
        tenantId: globex,
        userId: globexUser,
        status: "success",
        servedModel: "gpt-4.1",
        cost: "0.5",
        inputTokens: 999,
        at: day(1),
        tool: null,
      },
    ] as const;
    for (const [i, t] of turns.entries()) {
      const id = crypto.randomUUID();
      ids[`turn${i}`] = id;
      await app.db.insert(sysAgentTurn).values({
        id,
        tenantId: t.tenantId,
        userId: t.userId,
        source: "drawer",
        requestedModel: t.servedModel,
        servedModel: t.servedModel,
        servedAdapter: "openai",
        status: t.status,
        cost: t.cost,
        inputTokens: t.inputTokens,
        outputTokens: 10,
        startedAt: t.at,
        latencyMs: 100 + i,
        toolTrace: t.tool ? [{ name: t.tool, durationMs: 5, ok: true }] : [],
      });
      await app.db.insert(sysAgentAudit).values([
        {
          tenantId: t.tenantId,
          userId: t.userId,
          turnId: id,
          seq: 1,
          type: "request",
          payload: { message: `question ${i}` },
          createdAt: t.at,
        },
        {
          tenantId: t.tenantId,
          userId: t.userId,
          turnId: id,
          seq: 2,
          type: "tool_call",
          payload: { name: "x" },
          createdAt: new Date(t.at.getTime() + 1),
        },
      ]);
      await app.db.insert(usageDaily).values({
        tenantId: t.tenantId,
        day: t.at.toISOString().slice(0, 10),
        userId: t.userId,
        source: "drawer",
        servedAdapter: "openai",
        servedModel: t.servedModel,
        requests: 1,
        inputTokens: t.inputTokens,
        outputTokens: 10,
        cost: t.cost,
      });
    }
  });
  afterAll(async () => {
    await app.close();
  });
  beforeEach(() => {
    session.claims = null;
  });

  it("shows a tenant admin only their tenant's turns, newest first, with metrics and a separate count", async () => {
    await as("admin@acme.test", "acme");
    const { status, body } = await json("agent-turns/rows");
    expect(status).toBe(200);
    expect(body.rows.map((r: { id: string }) => r.id)).toEqual([ids.turn2, ids.turn1, ids.turn0]);
    expect(body.nextCursor).toBeNull();
    expect((await json("agent-turns/metrics")).body.metrics).toEqual({
      requests: 3,
      inputTokens: 350,
      outputTokens: 30,
      cost: "0.003",
    });
    expect((await json("agent-turns/count")).body).toEqual({ count: 3, approximate: false });
    // No priced row under the filter: the cost is unknown (null, shown as "—"), never $0.00; counts stay 0.
    expect((await json("agent-turns/metrics?f.costStatus=unpriced")).body.metrics).toEqual({
      requests: 0,
      inputTokens: 0,
      outputTokens: 0,
      cost: null,
    });
  });

  it("narrows by segment and filters, pages by keyset, and sorts", async () => {
    await as("admin@acme.test", "acme");
    expect(
      (await json("agent-turns/rows?segment=failed")).body.rows.map((r: { id: string }) => r.id),
    ).toEqual([ids.turn1]);
    expect((await json("agent-turns/rows?f.servedModel=gpt-4o-mini")).body.rows).toHaveLength(2);
    // The model filter is contained and case-insensitive, matched against the tenant's models first: a text no
    // model contains finds nothing, counted as nothing; another tenant's model is not the caller's to find.
    expect((await json("agent-turns/rows?f.servedModel=4O-MIN")).body.rows).toHaveLength(2);
    expect((await json("agent-turns/rows?f.servedModel=no-such-model")).body.rows).toEqual([]);
    expect((await json("agent-turns/rows?f.servedModel=gpt-4.1")).body.rows).toEqual([]);
    expect((await json("agent-turns/count?f.servedModel=no-such-model")).body).toMatchObject({ count: 0 });
    expect((await json("agent-turns/metrics?f.servedModel=100%25")).body.metrics).toMatchObject({
      requests: 0,
    });
    expect(
      (await json("agent-turns/rows?f.tool=web_fetch")).body.rows.map((r: { id: string }) => r.id),
    ).toEqual([ids.turn2]);
    expect(
      (await json("agent-turns/rows?f.startedAt.from=2026-11-21&f.startedAt.to=2026-11-21")).body.rows.map(
        (r: { id: string }) => r.id,
      ),
    ).toEqual([ids.turn1]);
    const first = (await json("agent-turns/rows?limit=2")).body;
    expect(first.rows).toHaveLength(2);
    const second = (await json(`agent-turns/rows?limit=2&cursor=${first.nextCursor}`)).body;
    expect(second.rows.map((r: { id: string }) => r.id)).toEqual([ids.turn0]);
    expect(
      (await json("agent-turns/rows?sort=inputTokens:asc")).body.rows.map(
        (r: { inputTokens: number }) => r.inputTokens,
      ),
    ).toEqual([50, 100, 200]);
  });

  it("refuses bad queries with a clear 422 or 400", async () => {
    await as("admin@acme.test", "acme");
    expect((await json("agent-turns/rows?sort=errorMessage:asc")).status).toBe(422);
    expect((await json("agent-turns/rows?f.nope=1")).body.error.message).toBe('unknown filter "nope"');
    expect((await json("agent-turns/rows?f.startedAt.from=yesterday")).status).toBe(422);
    expect((await json("agent-turns/rows?cursor=garbage")).status).toBe(400);
    expect((await json("agent-turns/rows?segment=exploded")).status).toBe(422);
  });

  it("answers 404 for another tenant's turn and 403 to a member", async () => {
    await as("admin@acme.test", "acme");
    expect((await json(`agent-turns/detail/${ids.turn3}`)).status).toBe(404);
    const mine = await json(`agent-turns/detail/${ids.turn0}`);
    expect(mine.status).toBe(200);
    expect(mine.body.events.map((e: { seq: number }) => e.seq)).toEqual([1, 2]);
    await as("member@acme.test", "acme");
    expect((await json("agent-turns/rows")).status).toBe(403);
    expect((await json("agent-audit/rows")).status).toBe(403);
    expect((await json("nope/rows")).status).toBe(404);
  });

  it("lets the super admin see every tenant, with tenant names and a tenant filter", async () => {
    await as("root@tollgate.test");
    const rows = (await json("agent-turns/rows")).body.rows as { tenantName: string }[];
    expect(new Set(rows.map((r) => r.tenantName))).toEqual(new Set(["Acme", "Globex"]));
    const globex = await app.tenantId("globex");
    expect(
      (await json(`agent-turns/rows?f.tenantId=${globex}`)).body.rows.map((r: { id: string }) => r.id),
    ).toEqual([ids.turn3]);
    expect((await json(`agent-turns/detail/${ids.turn3}`)).status).toBe(200);
  });

  it("serves the audit replay newest first, and a turn's timeline in seq order", async () => {
    await as("admin@acme.test", "acme");
    const rows = (await json("agent-audit/rows")).body.rows as { turnId: string; seq: number }[];
    expect(rows).toHaveLength(6);
    expect(rows[0]).toMatchObject({ turnId: ids.turn2, seq: 2 });
    expect((await json("agent-audit/rows?segment=tool_call")).body.rows).toHaveLength(3);
    expect((await json(`agent-audit/rows?f.turnId=${ids.turn1}`)).body.rows).toHaveLength(2);
  });

  it("computes the cost dashboard from the rollups", async () => {
    await as("admin@acme.test", "acme");
    expect((await json("agent-cost/metrics")).body.metrics).toEqual({
      requests: 3,
      inputTokens: 350,
      outputTokens: 30,
      cost: "0.003",
      unpricedRequests: 0,
    });
    expect((await json("agent-cost/series?chart=costByModel")).body.points).toEqual([
      { label: "claude-haiku-4-5", value: "0.002" },
      { label: "gpt-4o-mini", value: "0.001" },
    ]);
    expect((await json("agent-cost/series?chart=requestsByUser")).body.points).toEqual([
      { label: "member@acme.test", value: 3 },
    ]);
  });

  it("draws cost over time by day from the rollups, by week over a long range, and by the hour from the ledger over a short one", async () => {
    await as("admin@acme.test", "acme");
    const daily = (await json("agent-cost/series?chart=costByDay&f.day.from=2026-11-19&f.day.to=2026-11-23"))
      .body;
    expect(daily).toEqual({
      granularity: "day",
      points: [
        { label: "2026-11-19", value: 0 },
        { label: "2026-11-20", value: "0.001" },
        { label: "2026-11-21", value: "0" },
        { label: "2026-11-22", value: "0.002" },
        { label: "2026-11-23", value: 0 },
      ],
    });
    const weekly = (await json("agent-cost/series?chart=costByDay&f.day.from=2026-06-01&f.day.to=2026-11-30"))
      .body;
    expect(weekly.granularity).toBe("week");
    expect(weekly.points[0]).toEqual({ label: "2026-06-01", value: 0 });
    expect(weekly.points.filter((p: { value: unknown }) => p.value !== 0)).toEqual([
      { label: "2026-11-16", value: "0.003" },
    ]);
    const hourly = (await json("agent-cost/series?chart=costByDay&f.day.from=2026-11-22&f.day.to=2026-11-22"))
      .body;
    expect(hourly.granularity).toBe("hour");
    expect(hourly.points).toHaveLength(24);
    expect(hourly.points.filter((p: { value: unknown }) => p.value !== 0)).toEqual([
      { label: "2026-11-22T12:00:00Z", value: "0.002" },
    ]);
  });

  it("sorts a chart's bars by the amount, not by its text", async () => {
    await as("root@tollgate.test");
    const { points } = (await json("agent-cost/series?chart=costByModel")).body;
    const amounts = points.map((p: { value: string | number }) => Number(p.value));
    expect(amounts).toEqual([...amounts].sort((a, b) => b - a));
    expect(points[0]).toEqual({ label: "gpt-4.1", value: "0.5" });
  });

  it("exports every filtered row as CSV, not just a page", async () => {
    await as("admin@acme.test", "acme");
    const res = await get("agent-turns/export?f.servedModel=gpt-4o-mini&limit=1");
    expect(res.headers.get("content-type")).toContain("text/csv");
    const lines = (await res.text()).trim().split("\n");
    expect(lines[0]).toBe(
      "Started,User / API key,End user,Tags,Run,Status,Guardrails,Source,Served model,Tools,Prompt,Skills,In,Out,Cost,Latency",
    );
    expect(lines).toHaveLength(3);
  });

  it("opens the Runs page to admins only, with its filters checked and its columns in the export", async () => {
    await as("member@acme.test", "acme");
    expect((await json("agent-runs/rows")).status).toBe(403);
    await as("admin@acme.test", "acme");
    const { status, body } = await json("agent-runs/rows?f.status=failed");
    expect(status).toBe(200);
    expect(Array.isArray(body.rows)).toBe(true);
    expect((await json("agent-runs/rows?f.status=done")).status).toBe(422);
    expect((await json("agent-runs/rows?f.nope=1")).status).toBe(422);
    const res = await get("agent-runs/export");
    expect((await res.text()).split("\n")[0]).toBe(
      "Last call,Run id,Status,Sources,First call,Calls,Tool calls,In,Out,Cost,Duration",
    );
  });

  it("shows the gateway's routing to admins: each alias's candidates, healthy until a call fails", async () => {
    await as("member@acme.test", "acme");
    expect((await json("gateway-routing/rows")).status).toBe(403);
    await as("admin@acme.test", "acme");
    const { status, body } = await json("gateway-routing/rows?f.alias=offline");
    expect(status).toBe(200);
    expect(body.rows).toEqual([
      expect.objectContaining({
        alias: "offline-demo",
        strategy: "fallback",
        position: 1,
        provider: "offline",
        model: "offline-demo",
        state: "healthy",
        coolingUntil: null,
      }),
    ]);
    expect((await json("gateway-routing/rows?segment=cooling")).body.rows).toEqual([]);
    expect((await json("gateway-routing/metrics")).body.metrics).toMatchObject({ cooling: 0 });
    const detail = await json(`gateway-routing/detail/${encodeURIComponent(body.rows[0].id)}`);
    expect(detail.body.row).toMatchObject({ alias: "offline-demo", providerType: "offline" });
    expect((await json("gateway-routing/rows?f.nope=1")).status).toBe(422);
  });

  it("lists the registered tools in the catalog", async () => {
    await as("admin@acme.test", "acme");
    const names = (await json("agent-tools/rows?limit=200")).body.rows.map((r: { name: string }) => r.name);
    expect(names).toEqual(
      expect.arrayContaining(["query_orders", "todo_list", "web_fetch", "schedule_create", "delegate"]),
    );
  });
});
