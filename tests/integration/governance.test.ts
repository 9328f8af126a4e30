import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { Database } from "@/db";
import {
  reviewItem,
  reviewQueue,
  score,
  sysAgentAudit,
  sysAgentMessage,
  sysAgentSession,
  sysAgentTurn,
  tenant,
  usageDaily,
} from "@/db/schema";
import { ToolRegistry } from "@/lib/agent/registry";
import { AgentService } from "@/lib/agent/service";
import { defineTool, StaticToolSet } from "@/lib/agent/tool";
import { governanceFailures } from "@/lib/core/errors/failures";
import {
  conversationMessages,
  createConversation,
  DrizzleConversationStore,
  deleteConversation,
  getConversationOrThrow,
  listConversations,
  renameConversation,
} from "@/lib/governance/conversations";
import { auditTrail, getTurnOrThrow, listTurns, sweepInterruptedTurns } from "@/lib/governance/ledger";
import { meter } from "@/lib/governance/meter";
import { GovernanceRecorder } from "@/lib/governance/recorder";
import { applyRetention } from "@/lib/governance/retention";
import type { AgentEvent, TurnSummary } from "@/lib/turns/events";
import { call, ScriptedModel, type Step, scriptedGateway } from "../fakes/scripted-model";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";

const lookup = defineTool({
  name: "lookup",
  description: "Looks something up",
  parameters: z.object({ q: z.string(), apiKey: z.string().optional() }),
  execute: async ({ q }, ctx) => {
    if (q === "wait")
      await new Promise((_, reject) =>
        ctx.signal.addEventListener("abort", () => reject(new Error("stopped"))),
      );
    await new Promise((r) => setTimeout(r, q.length * 3));
    return { found: q };
  },
});

describe.each(testDbKinds)("the governance store on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let db: Database;
  let acme: string;
  let globex: string;
  let member: string;
  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    db = app.db;
    acme = await app.tenantId("acme");
    globex = await app.tenantId("globex");
    member = await app.userId("member@acme.test");
  });
  afterAll(async () => {
    await app.close();
  });
  beforeEach(async () => {
    await db.delete(sysAgentAudit);
    await db.delete(sysAgentTurn);
    await db.delete(usageDaily);
  });

  function agent(steps: Step[], database: () => Promise<Database> = async () => db) {
    const model = new ScriptedModel(steps);
    const registry = new ToolRegistry().register(new StaticToolSet("t", [lookup]));
    return {
      model,
      agent: new AgentService(
        {
          gateway: scriptedGateway(model),
          registry,
          store: new DrizzleConversationStore(database),
          observer: new GovernanceRecorder(database),
        },
        { maxToolLoops: 2 },
      ),
    };
  }

  async function run(
    a: AgentService,
    conversationId: string,
    opts: { stopOn?: (e: AgentEvent) => boolean; model?: string } = {},
  ) {
    const controller = new AbortController();
    const events: AgentEvent[] = [];
    for await (const e of a.send(
      { tenantId: acme, userId: member, role: "member", conversationId },
      { message: "Find it", model: opts.model ?? "scripted" },
      controller.signal,
    )) {
      events.push(e);
      if (opts.stopOn?.(e)) setTimeout(() => controller.abort(), 10);
    }
    return { events, summary: (events.at(-1) as { summary: TurnSummary }).summary };
  }

  const conversation = async () => (await createConversation(db, { tenantId: acme, userId: member })).id;

  it("closes a success turn with tokens and cost summed exactly over every round, and its daily rollup", async () => {
    const { agent: a } = agent([
      { toolCalls: [call("lookup", { q: "a" })], usage: { input: 1000, output: 50 } },
      { text: "Found a.", usage: { input: 1234, output: 77 } },
    ]);
    const id = await conversation();
    const { summary } = await run(a, id);
    const row = await getTurnOrThrow(db, { tenantId: acme, turnId: summary.turnId });
    // scripted-1: $1 per 1M input, $2 per 1M output: (2234 × 1 + 127 × 2) / 1M = 0.002488
    expect(row).toMatchObject({
      status: "success",
      inputTokens: 2234,
      outputTokens: 127,
      rounds: 2,
      servedModel: "scripted-1",
      source: "drawer",
    });
    expect(row.cost).toMatch(/^0\.0024880*$/);
    expect(row.toolTrace).toEqual([{ name: "lookup", durationMs: expect.any(Number), ok: true }]);
    expect(row.latencyMs).toBeGreaterThanOrEqual(0);
    const [rollup] = await meter(db, { tenantId: acme, by: "model" });
    expect(rollup).toMatchObject({
      key: "scripted-1",
      requests: 1,
      inputTokens: 2234,
      outputTokens: 127,
      cost: "0.002488",
    });
    // Messages are in the conversation, not the ledger.
    expect((await conversationMessages(db, acme, id)).map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "tool",
      "assistant",
    ]);
    expect((await getConversationOrThrow(db, { tenantId: acme, userId: member, id })).title).toBe("Find it");
  });

  it("records failed, limit and stopped turns with their status", async () => {
    const failed = await run(agent([{ fail: 500 }]).agent, await conversation());
    expect(await getTurnOrThrow(db, { tenantId: acme, turnId: failed.summary.turnId })).toMatchObject({
      status: "failed",
      errorClass: "server",
    });

    const always = () => ({ toolCalls: [call("lookup", { q: String(Math.random()) })] });
    const limited = await run(agent([always, always, { text: "" }]).agent, await conversation());
    expect(await getTurnOrThrow(db, { tenantId: acme, turnId: limited.summary.turnId })).toMatchObject({
      status: "limit",
      rounds: 3,
    });

    const id = await conversation();
    const stopped = await run(
      agent([{ text: "Checking.", toolCalls: [call("lookup", { q: "wait" }, "w1")] }]).agent,
      id,
      {
        stopOn: (e) => e.type === "tool_call",
      },
    );
    expect(await getTurnOrThrow(db, { tenantId: acme, turnId: stopped.summary.turnId })).toMatchObject({
      status: "stopped",
    });
    const messages = await conversationMessages(db, acme, id);
    expect(messages.at(-1)).toMatchObject({
      role: "tool",
      toolCallId: "w1",
      content: '{"error":"cancelled"}',
    });
    const trail = await auditTrail(db, { tenantId: acme, turnId: stopped.summary.turnId });
    // The model call had answered (with its tool call) when Stop came; no answer was shown.
    expect(trail.map((e) => e.type)).toEqual(["request", "tool_call", "model_call", "stop"]);
    expect(trail[2]!.payload).toMatchObject({ round: 1, outcome: "ok", toolCalls: 1, text: "Checking." });
  });

  it("numbers audit events 1..n with no gaps, in order, with 4 parallel tool calls", async () => {
    const calls = ["dddddddd", "a", "cccccc", "bbb"].map((q, i) => call("lookup", { q }, `p${i}`));
    const { summary } = await run(
      agent([{ toolCalls: calls }, { text: "done" }]).agent,
      await conversation(),
    );
    const trail = await auditTrail(db, { tenantId: acme, turnId: summary.turnId });
    expect(trail.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(trail.map((e) => e.type)).toEqual([
      "request",
      ...Array(4).fill("tool_call"),
      "model_call",
      ...Array(4).fill("tool_result"),
      "model_call",
      "answer",
    ]);
    // Results are audited as they finish (the shortest lookup first), each after its call.
    expect(trail.slice(6, 10).map((e) => (e.payload as { callId: string }).callId)).toEqual([
      "p1",
      "p3",
      "p2",
      "p0",
    ]);
  });

  it("masks secrets in audit payloads before they are written", async () => {
    const secret = ["sk-proj-", "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0"].join("");
    const { summary } = await run(
      agent([{ toolCalls: [call("lookup", { q: `use Bearer ${secret}`, apiKey: secret })] }, { text: "ok" }])
        .agent,
      await conversation(),
    );
    const trail = await auditTrail(db, { tenantId: acme, turnId: summary.turnId });
    const text = JSON.stringify(trail.map((e) => e.payload));
    expect(text).not.toContain(secret);
    expect(trail[1]!.payload).toMatchObject({
      args: { apiKey: "[masked]", q: expect.stringContaining("[masked") },
    });
  });

  it("masks what the operator's MASK_PATTERNS name in the audit trail and the ledger, besides the built-in rules", async () => {
    const before = process.env.MASK_PATTERNS;
    process.env.MASK_PATTERNS = '["EMP-\\\\d{6}"]';
    try {
      const { summary } = await run(
        agent([{ toolCalls: [call("lookup", { q: "badge EMP-123456 of the caller" })] }, { text: "ok" }])
          .agent,
        await conversation(),
      );
      const trail = await auditTrail(db, { tenantId: acme, turnId: summary.turnId });
      expect(JSON.stringify(trail.map((e) => e.payload))).not.toContain("EMP-123456");
      expect(trail[1]!.payload).toMatchObject({ args: { q: "badge [masked:custom] of the caller" } });
    } finally {
      if (before === undefined) delete process.env.MASK_PATTERNS;
      else process.env.MASK_PATTERNS = before;
    }
  });

  it("still streams the answer when the database fails mid-turn, and counts the failures", async () => {
    let broken = false;
    const flaky = async () => {
      if (broken) throw new Error("connection to the database was lost");
      return db;
    };
    const before = { ...governanceFailures };
    const { agent: a } = agent([{ text: "The answer still arrives." }], flaky);
    const id = await conversation();
    const events: AgentEvent[] = [];
    for await (const e of a.send(
      { tenantId: acme, userId: member, role: "member", conversationId: id },
      { message: "hi", model: "scripted" },
      new AbortController().signal,
    )) {
      // The history is loaded by now; from here every ledger, audit and conversation write fails.
      if (e.type === "text") broken = true;
      events.push(e);
    }
    expect(events.flatMap((e) => (e.type === "text" ? [e.delta] : [])).join("")).toBe(
      "The answer still arrives.",
    );
    expect(events.at(-1)).toMatchObject({ type: "done", summary: { status: "success" } });
    expect(governanceFailures.ledger).toBeGreaterThan(before.ledger);
    expect(governanceFailures.conversation).toBeGreaterThan(before.conversation);
  });

  it("marks turns left running by a dead process as interrupted, and only those", async () => {
    const now = new Date();
    await db.insert(sysAgentTurn).values([
      {
        id: crypto.randomUUID(),
        tenantId: acme,
        source: "drawer",
        requestedModel: "m",
        status: "running",
        startedAt: new Date(now.getTime() - 60 * 60_000),
      },
      {
        id: crypto.randomUUID(),
        tenantId: acme,
        source: "drawer",
        requestedModel: "m",
        status: "running",
        startedAt: new Date(now.getTime() - 60_000),
      },
    ]);
    expect(await sweepInterruptedTurns(db, { now })).toBe(1);
    const statuses = (await listTurns(db, { tenantId: acme })).map((t) => t.status).sort();
    expect(statuses).toEqual(["interrupted", "running"]);
  });

  it("retention deletes old ledger, audit and rollup rows, and keeps conversations", async () => {
    const id = await conversation();
    const { summary } = await run(agent([{ text: "old answer" }]).agent, id);
    // The turn's feedback and its place in a review queue go with it; another tenant's (longer retention) stay.
    const kept = crypto.randomUUID();
    await db.insert(score).values([
      { tenantId: acme, turnId: summary.turnId, name: "thumbs", type: "boolean", value: 0, source: "human" },
      { tenantId: globex, turnId: kept, name: "thumbs", type: "boolean", value: 1, source: "human" },
    ]);
    const [queue] = await db
      .insert(reviewQueue)
      .values({ tenantId: acme, name: `retention-${kept}`, createdBy: kept })
      .returning({ id: reviewQueue.id });
    await db
      .insert(reviewItem)
      .values({ tenantId: acme, queueId: queue!.id, turnId: summary.turnId, reason: "thumbs_down" });
    await db.update(tenant).set({ retentionDays: 30 }).where(eq(tenant.id, acme));
    const in40Days = new Date(Date.now() + 40 * 24 * 3600_000);
    const result = await applyRetention(db, { now: in40Days, batchSize: 1 });
    // request, model_call, answer
    expect(result).toMatchObject({ turns: 1, auditEvents: 3, rollupRows: 1, scores: 1, reviewItems: 1 });
    expect(await db.select({ turnId: score.turnId }).from(score)).toEqual([{ turnId: kept }]);
    expect(await db.select().from(reviewItem).where(eq(reviewItem.queueId, queue!.id))).toEqual([]);
    await expect(getTurnOrThrow(db, { tenantId: acme, turnId: summary.turnId })).rejects.toThrow(
      "turn not found",
    );
    expect(await auditTrail(db, { tenantId: acme, turnId: summary.turnId })).toEqual([]);
    expect((await conversationMessages(db, acme, id)).map((m) => m.content)).toEqual([
      "Find it",
      "old answer",
    ]);
    await db.update(tenant).set({ retentionDays: 90 }).where(eq(tenant.id, acme));
  });

  it("keeps every read inside its tenant: turns, audit events, conversations and costs", async () => {
    const id = await conversation();
    const { summary } = await run(
      agent([{ toolCalls: [call("lookup", { q: "x" })] }, { text: "ok" }]).agent,
      id,
    );
    await expect(getTurnOrThrow(db, { tenantId: globex, turnId: summary.turnId })).rejects.toThrow(
      "turn not found",
    );
    expect(await auditTrail(db, { tenantId: globex, turnId: summary.turnId })).toEqual([]);
    expect(await listTurns(db, { tenantId: globex })).toEqual([]);
    expect(await meter(db, { tenantId: globex, by: "user" })).toEqual([]);
    expect((await meter(db, { tenantId: null, by: "tenant" })).map((r) => r.key)).toEqual([acme]);
    const globexAdmin = await app.userId("admin@globex.test");
    const otherMember = await app.userId("admin@acme.test");
    for (const owner of [
      { tenantId: globex, userId: globexAdmin },
      { tenantId: acme, userId: otherMember },
    ]) {
      await expect(getConversationOrThrow(db, { ...owner, id })).rejects.toThrow("conversation not found");
      await expect(renameConversation(db, { ...owner, id, title: "mine now" })).rejects.toThrow(
        "conversation not found",
      );
      await expect(deleteConversation(db, { ...owner, id })).rejects.toThrow("conversation not found");
      expect((await listConversations(db, owner)).map((c) => c.id)).not.toContain(id);
    }
    expect(await conversationMessages(db, globex, id)).toEqual([]);
  });

  it("deleting a conversation removes its messages but keeps its ledger row and audit trail", async () => {
    const id = await conversation();
    const { summary } = await run(agent([{ text: "bye" }]).agent, id);
    await deleteConversation(db, { tenantId: acme, userId: member, id });
    expect(await db.select().from(sysAgentSession).where(eq(sysAgentSession.id, id))).toEqual([]);
    expect(await db.select().from(sysAgentMessage).where(eq(sysAgentMessage.sessionId, id))).toEqual([]);
    expect((await getTurnOrThrow(db, { tenantId: acme, turnId: summary.turnId })).conversationId).toBe(id);
    expect((await auditTrail(db, { tenantId: acme, turnId: summary.turnId })).length).toBeGreaterThan(0);
  });
});
