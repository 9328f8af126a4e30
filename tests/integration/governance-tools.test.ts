import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { sysAgentAudit, sysAgentTurn, usageDaily } from "@/db/schema";
import { rangeStart } from "@/features/drawer/server/copilot/pages";
import { ResultWithCards } from "@/lib/agent/cards";
import type { Tool, ToolContext } from "@/lib/agent/tool";
import { normalizeDecimal } from "@/lib/core/format/money";
import { configFromEnvironment } from "@/lib/gateway/config";
import { type AgentCard, agentCard } from "@/lib/turns/cards";
import { call, ScriptedModel, scriptedGateway } from "../fakes/scripted-model";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";
import { schemaGet } from "../helpers/schema-api";
import { session } from "../helpers/session";
import { readSse, type SseFrame } from "../helpers/sse";
import { postTurn } from "../helpers/turns";

vi.mock("@/lib/auth/session", () => import("../helpers/session"));

const QUESTION = "which model cost us most this week, and who used it?";
const GOVERNANCE = ["governance_query", "governance_metrics", "governance_chart", "governance_runs"];
const DAY = 86_400_000;

/** GET /api/schema/<path> as the session's user: what the page itself reads. */
async function pageData(path: string) {
  const res = await schemaGet(path);
  expect(res.status).toBe(200);
  return res.json();
}

async function sendTurn(body: unknown): Promise<SseFrame[]> {
  const res = await postTurn(body);
  expect(res.status).toBe(200);
  return readSse(res);
}

/** A tool's result as the model reads it (JSON), loosely typed for reading. */
type Row = Record<string, string | number | null>;
type Answer = {
  points: Row[];
  total: string;
  summary: string;
  chart: string;
  drill: { points: Row[] };
  links: { page: string; rows?: string };
  rows: Row[];
  nextCursor: string | null;
  metrics: { metric: string; value: unknown }[];
  note?: string;
};

const sum = (values: (string | number)[]) => values.reduce<number>((n, v) => n + Number(v), 0).toFixed(6);

describe.each(testDbKinds)("the governance tools on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  const ids = { acme: "", globex: "", acmeAdmin: "", acmeMember: "", globexMember: "", root: "" };
  const globexTurns: string[] = [];
  const now = new Date();
  const weekStart = rangeStart("7d", now);

  const as = async (email: string, slug: string | null) => {
    session.claims = { userId: await app.userId(email), tenantId: slug ? await app.tenantId(slug) : null };
  };
  const tool = (name: string): Tool => app.container.tools.registry.tools().find((t) => t.name === name)!;
  const toolContext = (over: Partial<ToolContext> = {}): ToolContext => ({
    tenantId: ids.acme,
    userId: ids.acmeAdmin,
    role: "admin",
    conversationId: crypto.randomUUID(),
    turnId: crypto.randomUUID(),
    signal: new AbortController().signal,
    emit: async () => {},
    addMessage: async () => {
      throw new Error("no model reads messages here");
    },
    addUsage: () => {},
    noteUse: () => {},
    ...over,
  });
  /** Runs a tool as the loop does: its arguments parsed by its own schema. */
  const run = async (name: string, args: Record<string, unknown>, ctx = toolContext()) => {
    const value = await tool(name).execute(tool(name).parameters.parse(args), ctx);
    expect(value).toBeInstanceOf(ResultWithCards);
    const { result, cards } = value as ResultWithCards;
    return { result: result as Answer, cards: cards as AgentCard[] };
  };

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    await app.rebuild({ gateway: configFromEnvironment({ OFFLINE_CHUNK_DELAY_MS: "0" }) });
    ids.acme = await app.tenantId("acme");
    ids.globex = await app.tenantId("globex");
    ids.acmeAdmin = await app.userId("admin@acme.test");
    ids.acmeMember = await app.userId("member@acme.test");
    ids.globexMember = await app.userId("member@globex.test");
    ids.root = await app.userId("root@tollgate.test");
    const ago = (days: number) => new Date(now.getTime() - days * DAY);
    // This week Acme spent most on gpt-4.1 (its admin once, its member twice counting gpt-4.1-mini, whose name
    // contains it); three weeks ago it spent more on Sonnet, and Globex more than anyone: neither may count.
    const turns = [
      { tenant: ids.acme, user: ids.acmeAdmin, model: "gpt-4.1", cost: "0.40", at: ago(1) },
      { tenant: ids.acme, user: ids.acmeMember, model: "gpt-4.1", cost: "0.25", at: ago(2) },
      { tenant: ids.acme, user: ids.acmeMember, model: "gpt-4.1-mini", cost: "0.05", at: ago(1) },
      { tenant: ids.acme, user: ids.acmeAdmin, model: "claude-haiku-4-5", cost: "0.30", at: ago(2) },
      { tenant: ids.acme, user: ids.acmeAdmin, model: "claude-sonnet-4-5", cost: "5.00", at: ago(20) },
      { tenant: ids.globex, user: ids.globexMember, model: "gpt-4o", cost: "9.00", at: ago(1) },
    ];
    for (const t of turns) {
      const id = crypto.randomUUID();
      if (t.tenant === ids.globex) globexTurns.push(id);
      await app.db.insert(sysAgentTurn).values({
        id,
        tenantId: t.tenant,
        userId: t.user,
        source: "drawer",
        requestedModel: t.model,
        servedModel: t.model,
        servedAdapter: "openai",
        status: "success",
        cost: t.cost,
        inputTokens: 100,
        outputTokens: 10,
        startedAt: t.at,
        latencyMs: 250,
      });
      await app.db.insert(usageDaily).values({
        tenantId: t.tenant,
        day: t.at.toISOString().slice(0, 10),
        userId: t.user,
        source: "drawer",
        servedAdapter: "openai",
        servedModel: t.model,
        requests: 1,
        inputTokens: 100,
        outputTokens: 10,
        cost: t.cost,
      });
    }
  });
  afterAll(async () => {
    await app.close();
  });
  beforeEach(async () => {
    await as("admin@acme.test", "acme");
  });

  it("answers a chart with the cost page's own numbers, for this tenant and week only", async () => {
    const { result, cards } = await run("governance_chart", { chart: "costByModel", range: "7d" });
    const page = await pageData(`agent-cost/series?chart=costByModel&f.day.from=${weekStart}`);
    expect(result.points).toEqual(
      page.points.map((p: { label: string; value: string }) => ({ servedModel: p.label, cost: p.value })),
    );
    expect(result.points[0]).toEqual({ servedModel: "gpt-4.1", cost: "0.65" });
    expect(JSON.stringify(result)).not.toContain('gpt-4o"');
    expect(JSON.stringify(result)).not.toContain("claude-sonnet");
    const metrics = await pageData(`agent-cost/metrics?f.day.from=${weekStart}`);
    expect(result.total).toBe(metrics.metrics.cost);
    const [table] = cards;
    expect(agentCard.parse(table)).toMatchObject({
      kind: "table",
      columns: [
        { key: "servedModel", type: "text" },
        { key: "cost", type: "money" },
      ],
      link: { href: `/dev/agent/cost?f.day.from=${weekStart}` },
    });
  });

  it("breaks the top model down by user in the same call, and links the ledger with those filters", async () => {
    const { result, cards } = await run("governance_chart", { range: "7d", drillBy: "user" });
    expect(result.chart).toBe("costByModel");
    const who = await pageData(
      `agent-cost/series?chart=requestsByUser&f.day.from=${weekStart}&f.servedModel=gpt-4.1`,
    );
    expect(result.drill.points).toEqual(
      who.points.map((p: { label: string; value: string }) => ({ user: p.label, requests: Number(p.value) })),
    );
    expect(result.drill.points).toEqual([
      { user: "member@acme.test", requests: 2 },
      { user: "admin@acme.test", requests: 1 },
    ]);
    // "gpt-4.1" is inside "gpt-4.1-mini": the answer says the filter counts both, as the pages do.
    expect(result.summary).toContain("also counts gpt-4.1-mini");
    const ledgerLink = `/dev/agent/turns?f.servedModel=gpt-4.1&f.startedAt.from=${weekStart}`;
    expect(result.links.rows).toBe(ledgerLink);
    const drillCard = agentCard.parse(cards[1]);
    expect(drillCard).toMatchObject({ kind: "table", link: { href: ledgerLink } });
    // The link opens the ledger on exactly the turns the answer counted.
    const query = new URL(ledgerLink, "http://app").search;
    const rows = (await pageData(`agent-turns/rows${query}`)).rows as { cost: string; servedModel: string }[];
    expect(rows.map((r) => r.servedModel).sort()).toEqual(["gpt-4.1", "gpt-4.1", "gpt-4.1-mini"]);
    const ledgerMetrics = await pageData(`agent-turns/metrics${query}`);
    expect(ledgerMetrics.metrics.requests).toBe(3);
    expect(sum(rows.map((r) => r.cost))).toBe(sum(["0.40", "0.25", "0.05"]));
  });

  it("reads ledger rows and metrics exactly as the ledger's data endpoints do", async () => {
    const { result, cards } = await run("governance_query", {
      page: "agent-turns",
      filters: { servedModel: "gpt" },
      limit: 2,
    });
    const page = await pageData("agent-turns/rows?f.servedModel=gpt&limit=2");
    const count = await pageData("agent-turns/count?f.servedModel=gpt");
    expect(result.rows.map((r) => r.id)).toEqual(page.rows.map((r: { id: string }) => r.id));
    expect(result.rows.map((r) => Number(r.cost))).toEqual(
      page.rows.map((r: { cost: string }) => Number(r.cost)),
    );
    expect(result.total).toBe(count.count);
    expect(result.nextCursor).toBe(page.nextCursor);
    const next = await run("governance_query", {
      page: "agent-turns",
      filters: { servedModel: "gpt" },
      limit: 2,
      cursor: result.nextCursor ?? undefined,
    });
    const nextPage = await pageData(`agent-turns/rows?f.servedModel=gpt&limit=2&cursor=${page.nextCursor}`);
    expect(next.result.rows.map((r) => r.id)).toEqual(nextPage.rows.map((r: { id: string }) => r.id));
    const table = agentCard.parse(cards[0]);
    expect(table).toMatchObject({ kind: "table", link: { href: "/dev/agent/turns?f.servedModel=gpt" } });
    if (table.kind !== "table") throw new Error("a table card");
    expect(table.columns.find((c) => c.key === "cost")?.type).toBe("money");
    expect(table.columns.find((c) => c.key === "inputTokens")?.type).toBe("number");
    expect(table.columns.find((c) => c.key === "startedAt")?.type).toBe("datetime");

    const metrics = await run("governance_metrics", { page: "agent-turns", range: "7d" });
    const pageMetrics = await pageData(`agent-turns/metrics?f.startedAt.from=${weekStart}`);
    expect(Object.fromEntries(metrics.result.metrics.map((m) => [m.metric, m.value]))).toEqual({
      ...pageMetrics.metrics,
      cost: normalizeDecimal(pageMetrics.metrics.cost),
    });
    expect(agentCard.parse(metrics.cards[0])).toMatchObject({ kind: "kv" });
  });

  it("refuses filters the page does not declare, naming those it has, so no argument widens the tenant", async () => {
    for (const filters of [{ tenantId: ids.globex }, { tenant: "Globex" }]) {
      await expect(run("governance_query", { page: "agent-turns", filters })).rejects.toThrow(
        /unknown filter "tenant(Id)?" for page agent-turns; its filters are: servedModel, .*startedAt\.from/,
      );
    }
    await expect(
      run("governance_query", { page: "agent-turns", filters: { source: "nowhere" } }),
    ).rejects.toThrow(/one of: drawer, api/);
    // The platform's pages are not among the tools' pages, and a tenant is no parameter of any tool.
    expect(tool("governance_query").parameters.safeParse({ page: "admin-tenants" }).success).toBe(false);
    for (const name of GOVERNANCE)
      expect(Object.keys(tool(name).schema.parameters.properties as object)).not.toContain("tenantId");
    // Every row is the turn's tenant's, whatever the filters.
    const all = await run("governance_query", { page: "agent-turns", limit: 50 });
    const rows = all.result.rows;
    expect(rows.length).toBeGreaterThan(0);
    for (const id of globexTurns) expect(rows.map((r) => r.id)).not.toContain(id);
    // A member's context cannot use them even when called directly.
    await expect(
      run(
        "governance_query",
        { page: "agent-turns" },
        toolContext({ userId: ids.acmeMember, role: "member" }),
      ),
    ).rejects.toThrow(/for tenant admins/);
  });

  it("answers the admin's question with the offline model: a tool result with table cards and the ledger link", async () => {
    const frames = await sendTurn({ message: QUESTION });
    expect(frames.find((f) => f.event === "notice" && f.data.code === "context")?.data.message).toMatch(
      /^Schema context: 11 pages, ~\d+ tokens$/,
    );
    const toolCall = frames.find((f) => f.event === "tool_call")!;
    expect(toolCall.data.call).toMatchObject({
      name: "governance_chart",
      args: { range: "7d", drillBy: "user" },
    });
    const toolResult = frames.find((f) => f.event === "tool_result")!;
    expect(toolResult.data).toMatchObject({ name: "governance_chart", ok: true });
    const cards = (toolResult.data.cards as unknown[]).map((c) => agentCard.parse(c));
    expect(cards.map((c) => c.kind)).toEqual(["table", "table"]);
    const link = cards[1]!.kind === "table" ? cards[1]!.link!.href : "";
    expect(link).toBe(`/dev/agent/turns?f.servedModel=gpt-4.1&f.startedAt.from=${weekStart}`);
    const text = frames
      .filter((f) => f.event === "text")
      .map((f) => f.data.delta)
      .join("");
    expect(text).toContain("gpt-4.1 is first with $0.65");
    expect(text).toContain("member@acme.test (2), admin@acme.test (1)");
    expect(text).toContain(link);
    expect(frames.at(-1)).toMatchObject({ event: "done", data: { summary: { status: "success" } } });
  });

  it("works for the super admin inside the tenant they chose, and never across tenants", async () => {
    await as("root@tollgate.test", "acme");
    const frames = await sendTurn({ message: QUESTION });
    expect(frames.find((f) => f.event === "notice" && f.data.code === "context")?.data.message).toMatch(
      /^Schema context: 12 pages, ~\d+ tokens$/,
    );
    const result = JSON.parse(frames.find((f) => f.event === "tool_result")!.data.result as string);
    expect(result.points[0]).toEqual({ servedModel: "gpt-4.1", cost: "0.65" });
    expect(JSON.stringify(result)).not.toContain('gpt-4o"');
  });

  it("never offers the tools (or the schema context) to a member, and refuses a member's forced call", async () => {
    await as("member@acme.test", "acme");
    const frames = await sendTurn({ message: QUESTION });
    expect(frames.some((f) => f.event === "notice" && f.data.code === "context")).toBe(false);
    expect(frames.some((f) => f.event === "tool_call" && GOVERNANCE.includes(f.data.name as string))).toBe(
      false,
    );
    const turnId = frames[0]!.data.turnId as string;
    const [request] = await app.db
      .select({ payload: sysAgentAudit.payload })
      .from(sysAgentAudit)
      .where(and(eq(sysAgentAudit.turnId, turnId), eq(sysAgentAudit.type, "request")));
    const offered = (request!.payload as { toolsOffered: string[] }).toolsOffered;
    expect(offered.length).toBeGreaterThan(0);
    for (const name of GOVERNANCE) expect(offered).not.toContain(name);

    // A model that calls the tool anyway (it was never offered) is refused by the loop, before the tool runs.
    const model = new ScriptedModel([
      { toolCalls: [call("governance_query", { page: "agent-turns" })] },
      { text: "I cannot read the ledger." },
    ]);
    await app.rebuild({ gateway: scriptedGateway(model) });
    try {
      const forced = await sendTurn({ message: "show me the ledger", model: "scripted" });
      expect(forced.find((f) => f.event === "guardrail")?.data).toMatchObject({
        code: "tool_not_allowed",
        tool: "governance_query",
      });
      expect(forced.find((f) => f.event === "tool_result")?.data).toMatchObject({
        name: "governance_query",
        ok: false,
        result: JSON.stringify({ error: "not allowed" }),
      });
      expect(model.requests[0]!.tools?.map((t) => t.name) ?? []).not.toContain("governance_query");
    } finally {
      await app.rebuild({ gateway: configFromEnvironment({ OFFLINE_CHUNK_DELAY_MS: "0" }) });
    }
  });

  it("cuts a long answer to whole rows, with a cursor that reads on right after the last one shown", async () => {
    await as("admin@acme.test", "acme");
    for (let i = 0; i < 45; i++)
      await app.db.insert(sysAgentTurn).values({
        id: crypto.randomUUID(),
        tenantId: ids.acme,
        userId: ids.acmeMember,
        source: "api",
        requestedModel: "bulk",
        servedModel: "bulk",
        servedAdapter: "openai",
        status: "success",
        cost: "0",
        endUser: `customer-${i}-${"x".repeat(60)}`,
        tags: ["nightly", "batch", "a-rather-long-tag-to-fill-the-row"],
        startedAt: new Date(now.getTime() - i * 60_000),
      });
    const args = { page: "agent-turns", filters: { servedModel: "bulk" }, limit: 50 };
    const first = await run("governance_query", {
      ...args,
      columns: ["startedAt", "endUser", "tagList", "cost"],
    });
    expect(first.result.rows.length).toBeLessThan(45);
    expect(first.result.total).toBe(45);
    expect(JSON.stringify(first.result).length).toBeLessThanOrEqual(6_000);
    expect(first.result.note).toMatch(/rows fit in one answer/);
    const second = await run("governance_query", {
      ...args,
      columns: ["startedAt"],
      cursor: first.result.nextCursor ?? undefined,
    });
    const all = await pageData("agent-turns/rows?f.servedModel=bulk&limit=50");
    expect([...first.result.rows, ...second.result.rows].map((r) => r.id)).toEqual(
      all.rows.map((r: { id: string }) => r.id),
    );
  });
});
