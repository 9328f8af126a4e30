import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { sysAgentAudit, sysAgentTurn } from "@/db/schema";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";
import { schemaJson as json } from "../helpers/schema-api";
import { session } from "../helpers/session";

vi.mock("@/lib/auth/session", () => import("../helpers/session"));

// The filter bar's operators on the server: f.<field>.not, .gt, .lt, .gte + .lte (docs/guides/ledger.md, "Filters").
describe.each(testDbKinds)("filter operators on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  const ids: string[] = [];
  const as = async (email: string, slug?: string) => {
    session.claims = { userId: await app.userId(email), tenantId: slug ? await app.tenantId(slug) : null };
  };
  const rowIds = async (path: string) => {
    const { status, body } = await json(path);
    expect(status, JSON.stringify(body)).toBe(200);
    return body.rows.map((r: { id?: string; runId?: string }) => r.id ?? r.runId);
  };

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    const acme = await app.tenantId("acme");
    const globex = await app.tenantId("globex");
    const acmeUser = await app.userId("member@acme.test");
    const globexUser = await app.userId("member@globex.test");
    const at = (n: number) => new Date(Date.UTC(2026, 10, 20 + n, 12));
    const turns = [
      {
        tenantId: acme,
        userId: acmeUser,
        model: "gpt-4o-mini",
        status: "success",
        cost: "0.001",
        input: 100,
        run: "r1",
        tool: "query_orders",
      },
      {
        tenantId: acme,
        userId: acmeUser,
        model: "gpt-4o-mini",
        status: "failed",
        cost: "0",
        input: 50,
        run: "r1",
        tool: null,
      },
      {
        tenantId: acme,
        userId: acmeUser,
        model: "claude-haiku-4-5",
        status: "success",
        cost: "0.002",
        input: 200,
        run: "r2",
        tool: "web_fetch",
      },
      {
        tenantId: globex,
        userId: globexUser,
        model: "gpt-4.1",
        status: "success",
        cost: "0.5",
        input: 999,
        run: "r9",
        tool: null,
      },
    ] as const;
    for (const [i, t] of turns.entries()) {
      const id = crypto.randomUUID();
      ids.push(id);
      await app.db.insert(sysAgentTurn).values({
        id,
        tenantId: t.tenantId,
        userId: t.userId,
        source: "drawer",
        requestedModel: t.model,
        servedModel: t.model,
        servedAdapter: "openai",
        status: t.status,
        cost: t.cost,
        inputTokens: t.input,
        outputTokens: 10,
        startedAt: at(i),
        latencyMs: 100 + i,
        runId: t.run,
        toolTrace: t.tool ? [{ name: t.tool, durationMs: 5, ok: true }] : [],
      });
      await app.db.insert(sysAgentAudit).values({
        tenantId: t.tenantId,
        userId: t.userId,
        turnId: id,
        seq: 1,
        type: "request",
        payload: { message: `question ${i}` },
        createdAt: at(i),
      });
    }
  }, 300_000);
  afterAll(async () => {
    await app.close();
  });
  beforeEach(() => {
    session.claims = null;
  });

  it("is not: the rows the filter does not hold for, through the model resolver, nulls included", async () => {
    await as("admin@acme.test", "acme");
    expect(await rowIds("agent-turns/rows?f.servedModel.not=gpt")).toEqual([ids[2]]);
    // No model contains the text: the resolver's "none" negated is every row of the tenant (not globex's).
    expect(await rowIds("agent-turns/rows?f.servedModel.not=no-such-model")).toEqual([
      ids[2],
      ids[1],
      ids[0],
    ]);
    expect((await json("agent-turns/count?f.servedModel.not=gpt")).body).toEqual({
      count: 1,
      approximate: false,
    });
    // A turn without a tool is "not web_fetch" too.
    expect(await rowIds("agent-turns/rows?f.tool.not=web_fetch")).toEqual([ids[1], ids[0]]);
    expect(await rowIds("agent-turns/rows?f.servedAdapter.not=openai")).toEqual([]);
    expect(await rowIds("agent-audit/rows?f.user.not=nobody")).toHaveLength(3);
    expect(await rowIds("agent-audit/rows?f.user.not=member%40acme")).toEqual([]);
  });

  it("> / < / between on number filters, inside the tenant", async () => {
    await as("admin@acme.test", "acme");
    expect(await rowIds("agent-turns/rows?f.latencyMs.gt=100")).toEqual([ids[2], ids[1]]);
    expect(await rowIds("agent-turns/rows?f.latencyMs.lt=101")).toEqual([ids[0]]);
    expect(await rowIds("agent-turns/rows?f.inputTokens.gte=60&f.inputTokens.lte=200")).toEqual([
      ids[2],
      ids[0],
    ]);
    expect(await rowIds("agent-turns/rows?f.cost.gt=0.0015")).toEqual([ids[2]]);
    // Globex's 0.5 turn is never the acme admin's, whatever the bound.
    expect(await rowIds("agent-turns/rows?f.cost.gt=0.1")).toEqual([]);
    expect((await json("agent-turns/metrics?f.latencyMs.gt=100")).body.metrics).toMatchObject({
      requests: 2,
    });
    await as("root@tollgate.test");
    expect(await rowIds("agent-turns/rows?f.cost.gt=0.1")).toEqual([ids[3]]);
  });

  it("on runs: totals compared after grouping, and status / source negated", async () => {
    await as("admin@acme.test", "acme");
    expect(await rowIds("agent-runs/rows?f.calls.gt=1")).toEqual(["r1"]);
    expect(await rowIds("agent-runs/rows?f.status.not=failed")).toEqual(["r2"]);
    expect(await rowIds("agent-runs/rows?f.cost.gte=0.0015&f.cost.lte=1")).toEqual(["r2"]);
    expect(await rowIds("agent-runs/rows?f.durationMs.lt=0")).toEqual([]);
    expect(await rowIds("agent-runs/rows?f.source.not=drawer")).toEqual([]);
  });

  it("refuses an unknown operator, an operator the filter does not offer and a bad number, naming the filter", async () => {
    await as("admin@acme.test", "acme");
    const refusal = async (path: string) => {
      const { status, body } = await json(path);
      expect(status).toBe(422);
      return body.error.message as string;
    };
    expect(await refusal("agent-turns/rows?f.latencyMs.like=1")).toBe(
      'f.latencyMs.like: unknown operator "like"',
    );
    expect(await refusal("agent-turns/rows?f.latencyMs.gt=1e3")).toBe(
      "f.latencyMs.gt must be a number, such as 250 or 0.05",
    );
    expect(await refusal("agent-turns/rows?f.cost.gte=2&f.cost.lte=1")).toBe(
      "f.cost.gte must not be above f.cost.lte",
    );
    expect(await refusal("agent-turns/rows?f.runId.not=r1")).toBe('unknown filter "runId.not"');
    expect(await refusal("agent-turns/rows?f.servedModel.gt=1")).toBe('unknown filter "servedModel.gt"');
    expect(await refusal("agent-turns/count?f.latencyMs=100")).toBe('unknown filter "latencyMs"');
    expect(await refusal("agent-audit/rows?f.turnId.not=x")).toBe('unknown filter "turnId.not"');
    expect(await refusal("agent-runs/rows?f.calls.gt=many")).toBe(
      "f.calls.gt must be a number, such as 250 or 0.05",
    );
    expect(await refusal("agent-runs/rows?f.runId.gt=1")).toBe('unknown filter "runId.gt"');
    expect(await refusal("agent-runs/rows?f.status.not=exploded")).toBe(
      "f.status.not must be one of: success, failed, running",
    );
  });
});
