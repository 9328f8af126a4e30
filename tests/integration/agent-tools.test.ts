import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ordersToolSet } from "@/features/demo/server/orders-tools";
import { ResultWithCards } from "@/lib/agent/cards";
import { ToolRegistry } from "@/lib/agent/registry";
import { AgentService } from "@/lib/agent/service";
import type { ToolContext } from "@/lib/agent/tool";
import type { ToolUse } from "@/lib/agent/tool-uses";
import { memoryToolSet } from "@/lib/agent/toolsets/memory";
import { skillsToolSet } from "@/lib/agent/toolsets/skills";
import { runSubagent } from "@/lib/agent/toolsets/subagent";
import { fromWallClock, timeToolSet } from "@/lib/agent/toolsets/time";
import { configFromEnvironment } from "@/lib/gateway/config";
import { Gateway } from "@/lib/gateway/gateway";
import { addUsage, type Usage, ZERO_USAGE } from "@/lib/gateway/types";
import { agentCard } from "@/lib/turns/cards";
import { InMemoryConversationStore, modelHistory } from "@/lib/turns/conversation";
import type { AgentEvent } from "@/lib/turns/events";
import { call, ScriptedModel, scriptedGateway } from "../fakes/scripted-model";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";

describe.each(testDbKinds)("agent tools on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let acme: string;
  let globex: string;
  let acmeUser: string;
  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    acme = await app.tenantId("acme");
    globex = await app.tenantId("globex");
    acmeUser = await app.userId("member@acme.test");
  });
  afterAll(async () => {
    await app.close();
  });
  const toolCtx = (tenantId: string, userId: string): ToolContext => ({
    tenantId,
    userId,
    role: "member",
    conversationId: "c1",
    turnId: "turn1",
    signal: new AbortController().signal,
    emit: async () => {},
    addMessage: async () => {
      throw new Error("no model reads messages here");
    },
    addUsage: () => {},
    noteUse: () => {},
  });
  const tool = (name: string, set = ordersToolSet(async () => app.db)) =>
    set.tools().find((t) => t.name === name)!;
  /** What the model receives of a tool's answer (cards are the drawer's). */
  const plain = (value: unknown) => (value instanceof ResultWithCards ? value.result : value);

  it("the orders tools only ever see their own tenant's rows", async () => {
    const mine = plain(await tool("query_orders").execute({}, toolCtx(acme, acmeUser))) as {
      orders: { orderId: string }[];
    };
    expect(mine.orders.map((o) => o.orderId)).toEqual([
      "A-1001",
      "A-1002",
      "A-1003",
      "A-1004",
      "A-1005",
      "A-1006",
    ]);
    const theirs = plain(await tool("query_orders").execute({}, toolCtx(globex, acmeUser))) as {
      orders: { orderId: string }[];
    };
    expect(theirs.orders.every((o) => o.orderId.startsWith("G-"))).toBe(true);
    await expect(tool("get_order").execute({ orderId: "G-2001" }, toolCtx(acme, acmeUser))).rejects.toThrow(
      "order G-2001 not found",
    );
    expect(
      plain(await tool("get_order").execute({ orderId: "a-1003" }, toolCtx(acme, acmeUser))),
    ).toMatchObject({
      customer: "Wile E. Coyote",
      totalUsd: "1999.00",
    });
    const open = plain(
      await tool("query_orders").execute({ status: "open", customer: "coyote" }, toolCtx(acme, acmeUser)),
    ) as { count: number };
    expect(open.count).toBe(2);
  });

  it("the offline demo model answers 'what are my open orders?' with the tenant's real rows", async () => {
    const registry = new ToolRegistry().register(ordersToolSet(async () => app.db));
    const agent = new AgentService({
      gateway: new Gateway(configFromEnvironment({ OFFLINE_CHUNK_DELAY_MS: "0" })),
      registry,
      store: new InMemoryConversationStore(),
    });
    const events: AgentEvent[] = [];
    for await (const e of agent.send(
      { tenantId: acme, userId: acmeUser, role: "member", conversationId: "c-orders" },
      { message: "what are my open orders?" },
      new AbortController().signal,
    )) {
      events.push(e);
    }
    const toolCall = events.find((e) => e.type === "tool_call");
    expect(toolCall).toMatchObject({ call: { name: "query_orders", args: { status: "open" } } });
    const answer = events.flatMap((e) => (e.type === "text" ? [e.delta] : [])).join("");
    for (const number of ["A-1001", "A-1003", "A-1006"]) expect(answer).toContain(number);
    expect(answer).not.toContain("A-1002");
    expect(answer).not.toContain("G-2001");
    expect(events.at(-1)).toMatchObject({
      type: "done",
      summary: { status: "success", servedAdapter: "offline", cost: "0" },
    });
  });

  it("the orders tools return valid cards for the drawer beside the plain result the model reads", async () => {
    const listed = await tool("query_orders").execute({ status: "open" }, toolCtx(acme, acmeUser));
    expect(listed).toBeInstanceOf(ResultWithCards);
    const { result, cards } = listed as ResultWithCards;
    expect(result).toMatchObject({ count: 3 });
    expect(JSON.stringify(result)).not.toContain("columns");
    const table = agentCard.parse(cards[0]);
    expect(table).toMatchObject({ kind: "table", title: "Orders (open)" });
    if (table.kind !== "table") throw new Error("a table card");
    expect(table.columns.map((c) => [c.key, c.type])).toEqual([
      ["orderId", "text"],
      ["customer", "text"],
      ["status", "text"],
      ["totalUsd", "money"],
      ["createdAt", "datetime"],
    ]);
    expect(table.rows.map((r) => r.orderId)).toEqual(["A-1001", "A-1003", "A-1006"]);

    const one = (await tool("get_order").execute(
      { orderId: "A-1003" },
      toolCtx(acme, acmeUser),
    )) as ResultWithCards;
    const order = agentCard.parse(one.cards[0]);
    expect(order).toMatchObject({
      kind: "kv",
      title: "Order A-1003",
      context: { type: "order", id: "A-1003", label: "Order A-1003" },
    });
    if (order.kind !== "kv") throw new Error("a kv card");
    expect(order.items.find((i) => i.label === "Total")).toEqual({
      label: "Total",
      value: "1999.00",
      type: "money",
    });
  });

  it("a turn streams the orders table card on its tool_result and stores it on the tool message, never in what the model reads", async () => {
    const store = new InMemoryConversationStore();
    const agent = new AgentService({
      gateway: new Gateway(configFromEnvironment({ OFFLINE_CHUNK_DELAY_MS: "0" })),
      registry: new ToolRegistry().register(ordersToolSet(async () => app.db)),
      store,
    });
    const events: AgentEvent[] = [];
    for await (const e of agent.send(
      { tenantId: acme, userId: acmeUser, role: "member", conversationId: "c-cards" },
      { message: "show my open orders" },
      new AbortController().signal,
    ))
      events.push(e);
    const result = events.find((e) => e.type === "tool_result");
    if (result?.type !== "tool_result") throw new Error("a tool result");
    expect(result.cards?.map((c) => c.kind)).toEqual(["table"]);
    expect(result.result).not.toContain("columns");
    expect(JSON.parse(result.result)).toMatchObject({ count: 3 });

    const history = await store.history(acme, "c-cards");
    const toolMessage = history.find((m) => m.role === "tool");
    expect((toolMessage?.data?.cards as { kind: string }[] | undefined)?.map((c) => c.kind)).toEqual([
      "table",
    ]);
    // What the model is sent on the next turn: the plain result only.
    const forModel = modelHistory(history).find((m) => m.role === "tool");
    expect(forModel).not.toHaveProperty("data");
    expect(JSON.stringify(forModel)).not.toContain("columns");
  });

  it("memory notes are kept per user within the tenant", async () => {
    const set = memoryToolSet(async () => app.db);
    const otherUser = await app.userId("admin@acme.test");
    const saved = (await tool("remember", set).execute(
      { note: "Prefers invoices in EUR" },
      toolCtx(acme, acmeUser),
    )) as { id: string };
    const mine = (await tool("recall", set).execute({ query: "eur" }, toolCtx(acme, acmeUser))) as {
      notes: { note: string }[];
    };
    expect(mine.notes.map((n) => n.note)).toEqual(["Prefers invoices in EUR"]);
    expect(
      ((await tool("recall", set).execute({}, toolCtx(acme, otherUser))) as { notes: unknown[] }).notes,
    ).toEqual([]);
    expect(
      ((await tool("recall", set).execute({}, toolCtx(globex, acmeUser))) as { notes: unknown[] }).notes,
    ).toEqual([]);
    await expect(tool("forget", set).execute({ id: saved.id }, toolCtx(acme, otherUser))).rejects.toThrow(
      "no note",
    );
    expect(await tool("forget", set).execute({ id: saved.id }, toolCtx(acme, acmeUser))).toEqual({
      deleted: true,
    });
  });
});

describe("the time tools", () => {
  const ctx = { signal: new AbortController().signal } as ToolContext;
  const set = timeToolSet(() => new Date("2026-03-29T00:30:00Z"));
  const tool = (name: string) => set.tools().find((t) => t.name === name)!;

  it("tells the current time in a zone, and refuses an unknown zone by name", async () => {
    expect(await tool("current_time").execute({ timeZone: "Asia/Shanghai" }, ctx)).toMatchObject({
      utc: "2026-03-29T00:30:00.000Z",
      local: "2026-03-29 08:30:00",
      offset: "UTC+08:00",
      weekday: "Sunday",
    });
    await expect(tool("current_time").execute({ timeZone: "Mars/Olympus" }, ctx)).rejects.toThrow(
      'unknown time zone "Mars/Olympus"',
    );
  });

  it("converts across zones, daylight saving included", async () => {
    const result = (await tool("convert_time").execute(
      { time: "2026-07-01 09:00", from: "Europe/London", to: "America/New_York" },
      ctx,
    )) as {
      utc: string;
      to: { local: string };
    };
    expect(result.utc).toBe("2026-07-01T08:00:00.000Z");
    expect(result.to.local).toBe("2026-07-01 04:00:00");
    expect(fromWallClock("2026-01-15 12:00", "Europe/Paris").toISOString()).toBe("2026-01-15T11:00:00.000Z");
  });
});

describe("the sub-agent", () => {
  it("runs the delegated task with its own tools and rolls its usage up into the calling turn", async () => {
    const model = new ScriptedModel([
      { toolCalls: [call("current_time", {})], usage: { input: 100, output: 10 } },
      { text: "It is morning.", usage: { input: 200, output: 20 } },
    ]);
    const registry = new ToolRegistry().register(timeToolSet());
    let rolled: Usage = ZERO_USAGE;
    let rolledCost: string | null = null;
    const result = await runSubagent(
      { gateway: scriptedGateway(model), registry, model: "scripted" },
      "What time is it?",
      {
        tenantId: "t",
        userId: "u",
        role: "member",
        signal: new AbortController().signal,
        addUsage: (u, c) => {
          rolled = addUsage(rolled, u);
          rolledCost = c;
        },
        noteUse: () => {},
      },
    );
    expect(result).toMatchObject({ status: "success", answer: "It is morning.", toolCalls: 1 });
    expect(rolled).toMatchObject({ inputTokens: 300, outputTokens: 30 });
    // scripted-1 costs $1 per 1M input and $2 per 1M output: (300 × 1 + 30 × 2) / 1M
    expect(rolledCost).toBe("0.00036");
    expect(model.requests[0]!.messages[0]!.content).toMatch(/sub-agent/);
  });

  it("has no ledger row of its own: the skills it loaded are noted on the calling turn", async () => {
    const model = new ScriptedModel([
      { toolCalls: [call("skill_load", { name: "refunds" })] },
      { text: "Refunds take 45 days." },
    ]);
    const refunds = { name: "refunds", description: "Refund questions", version: 4 };
    const registry = new ToolRegistry().register(
      skillsToolSet(
        {
          live: async () => [refunds],
          load: async () => ({ ...refunds, instructions: "Cite the policy.", files: [] }),
          file: async () => null,
        },
        [refunds],
      ),
    );
    const noted: ToolUse[] = [];
    await runSubagent({ gateway: scriptedGateway(model), registry, model: "scripted" }, "Refund?", {
      tenantId: "t",
      userId: "u",
      role: "member",
      signal: new AbortController().signal,
      addUsage: () => {},
      noteUse: (use) => noted.push(use),
    });
    expect(noted).toEqual([{ kind: "skill", name: "refunds", version: 4 }]);
  });
});
