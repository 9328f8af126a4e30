import { randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Database } from "@/db";
import { instance, sysAgentAudit, sysAgentMessage, sysAgentTurn, usageDaily } from "@/db/schema";
import { ToolRegistry } from "@/lib/agent/registry";
import { AgentService } from "@/lib/agent/service";
import type { AdapterRequest } from "@/lib/gateway/adapters/adapter";
import {
  conversationMessages,
  createConversation,
  DrizzleConversationStore,
} from "@/lib/governance/conversations";
import {
  markDeadNeighbours,
  mintProcessIdentity,
  type ProcessIdentity,
  writeHeartbeat,
} from "@/lib/governance/instance";
import { getTurnOrThrow, sweepInterruptedTurns } from "@/lib/governance/ledger";
import { GovernanceRecorder } from "@/lib/governance/recorder";
import type { AgentEvent } from "@/lib/turns/events";
import { ScriptedModel, scriptedGateway } from "../fakes/scripted-model";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";

/** A model that looks at the conversation the moment it is called, before it answers. */
class PeekingModel extends ScriptedModel {
  seen: string[][] = [];
  constructor(
    private readonly peek: () => Promise<string[]>,
    text: string,
  ) {
    super([], { text });
  }
  override async *stream(req: AdapterRequest, signal: AbortSignal) {
    this.seen.push(await this.peek());
    yield* super.stream(req, signal);
  }
}

describe.each(testDbKinds)("interrupted turns on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let db: Database;
  let acme: string;
  let member: string;
  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    db = app.db;
    acme = await app.tenantId("acme");
    member = await app.userId("member@acme.test");
  });
  afterAll(async () => {
    await app.close();
  });
  beforeEach(async () => {
    await db.delete(sysAgentAudit);
    await db.delete(sysAgentTurn);
    await db.delete(usageDaily);
    await db.delete(instance);
  });

  const identity = (): ProcessIdentity => ({
    id: randomUUID(),
    host: "test-host",
    pid: 999_999,
    processSpace: null,
  });
  /** An instance row whose last heartbeat was `agoMs` ago. */
  async function instanceRow(agoMs: number, extra: Partial<typeof instance.$inferInsert> = {}) {
    const id = randomUUID();
    await db.insert(instance).values({
      id,
      host: "test-host",
      pid: 999_999,
      heartbeatAt: sql`now() - ${`${agoMs} milliseconds`}::interval`,
      ...extra,
    });
    return id;
  }
  async function runningTurn(instanceId: string | null, startedAgoMs = 1_000) {
    const id = randomUUID();
    await db.insert(sysAgentTurn).values({
      id,
      tenantId: acme,
      userId: member,
      source: "drawer",
      requestedModel: "scripted",
      status: "running",
      instanceId,
      startedAt: new Date(Date.now() - startedAgoMs),
    });
    return id;
  }
  const statusOf = async (id: string) => (await getTurnOrThrow(db, { tenantId: acme, turnId: id })).status;
  /** Rollup requests and ledger rows that are not running, for this tenant: they must be equal. */
  async function rollupVsLedger() {
    const [rollup] = await db
      .select({ n: sql<number>`coalesce(sum(${usageDaily.requests}), 0)::int` })
      .from(usageDaily)
      .where(eq(usageDaily.tenantId, acme));
    const [ledger] = await db
      .select({ n: sql<number>`count(*)::int` })
      .from(sysAgentTurn)
      .where(sql`${sysAgentTurn.tenantId} = ${acme} and ${sysAgentTurn.status} <> 'running'`);
    return { rollup: rollup!.n, ledger: ledger!.n };
  }

  it("marks a dead instance's turns interrupted at once and never touches a live instance's", async () => {
    const dead = await instanceRow(60_000);
    const alive = await instanceRow(1_000);
    const deadTurn = await runningTurn(dead);
    const aliveTurn = await runningTurn(alive, 20 * 60_000);
    // No instance at all (rows from before instances): the 15-minute age rule, as the last resort.
    const oldOrphan = await runningTurn(null, 20 * 60_000);
    const youngOrphan = await runningTurn(null, 60_000);
    // An instance id that never registered: dead once older than the heartbeat timeout, not before.
    const unregisteredOld = await runningTurn(randomUUID(), 60_000);
    const unregisteredNew = await runningTurn(randomUUID(), 1_000);

    expect(await sweepInterruptedTurns(db)).toBe(3);
    expect(await statusOf(deadTurn)).toBe("interrupted");
    expect(await statusOf(oldOrphan)).toBe("interrupted");
    expect(await statusOf(unregisteredOld)).toBe("interrupted");
    expect(await statusOf(aliveTurn)).toBe("running");
    expect(await statusOf(youngOrphan)).toBe("running");
    expect(await statusOf(unregisteredNew)).toBe("running");
    expect(await getTurnOrThrow(db, { tenantId: acme, turnId: deadTurn })).toMatchObject({
      errorClass: "interrupted",
      errorMessage: "the process handling this turn stopped before it finished",
    });
    // Swept turns reach the daily rollups like closed ones, once, however many instances sweep.
    expect(await rollupVsLedger()).toEqual({ rollup: 3, ledger: 3 });
    await Promise.all([sweepInterruptedTurns(db), sweepInterruptedTurns(db)]);
    expect(await rollupVsLedger()).toEqual({ rollup: 3, ledger: 3 });

    // The live instance's heartbeat stops: its turn goes at the next sweep.
    await db
      .update(instance)
      .set({ heartbeatAt: sql`now() - interval '1 minute'` })
      .where(eq(instance.id, alive));
    expect(await sweepInterruptedTurns(db)).toBe(1);
    expect(await statusOf(aliveTurn)).toBe("interrupted");
    expect(await rollupVsLedger()).toEqual({ rollup: 4, ledger: 4 });
  });

  it("two instances on one database: each keeps beating and neither sweeps the other's turns", async () => {
    const a = identity();
    const b = identity();
    await writeHeartbeat(db, a);
    await writeHeartbeat(db, b);
    const turnA = await runningTurn(a.id, 60_000);
    const turnB = await runningTurn(b.id, 60_000);
    expect(await sweepInterruptedTurns(db)).toBe(0);
    // b dies (its heartbeat goes stale); a beats on.
    await db
      .update(instance)
      .set({ heartbeatAt: sql`now() - interval '31 seconds'` })
      .where(eq(instance.id, b.id));
    await writeHeartbeat(db, a);
    expect(await sweepInterruptedTurns(db)).toBe(1);
    expect([await statusOf(turnA), await statusOf(turnB)]).toEqual(["running", "interrupted"]);
  });

  it("at start-up, an earlier process of this host whose pid is gone is dead at once", async () => {
    const self = mintProcessIdentity();
    expect(self.processSpace).toBeTruthy();
    // The same pid as ours under another id: this process's previous life (PID 1 in a restarted container).
    const previous = await instanceRow(1_000, { processSpace: self.processSpace, pid: self.pid });
    // Another live process in the same PID namespace (our parent): not provably dead, so left alone.
    const neighbour = await instanceRow(1_000, { processSpace: self.processSpace, pid: process.ppid });
    const previousTurn = await runningTurn(previous);
    const neighbourTurn = await runningTurn(neighbour);
    await writeHeartbeat(db, self);
    expect(await markDeadNeighbours(db, self)).toEqual([previous]);
    expect(await sweepInterruptedTurns(db)).toBe(1);
    expect([await statusOf(previousTurn), await statusOf(neighbourTurn)]).toEqual(["interrupted", "running"]);
  });

  it("stores the user's message before the model is called, and the turn's other messages once at the end", async () => {
    const conversationId = (await createConversation(db, { tenantId: acme, userId: member })).id;
    const contents = async () => (await conversationMessages(db, acme, conversationId)).map((m) => m.content);
    const model = new PeekingModel(contents, "Here it is.");
    const agent = new AgentService({
      gateway: scriptedGateway(model),
      registry: new ToolRegistry(),
      store: new DrizzleConversationStore(async () => db),
      observer: new GovernanceRecorder(async () => db),
    });
    for await (const _ of agent.send(
      { tenantId: acme, userId: member, role: "member", conversationId },
      { message: "What is due today?", model: "scripted" },
      new AbortController().signal,
    ));
    expect(model.seen).toEqual([["What is due today?"]]);
    const messages = await conversationMessages(db, acme, conversationId);
    expect(messages.map((m) => [m.role, m.content])).toEqual([
      ["user", "What is due today?"],
      ["assistant", "Here it is."],
    ]);
    expect(new Set(messages.map((m) => m.turnId)).size).toBe(1);
  });

  it("a turn whose process dies mid-answer keeps the user's message and becomes interrupted", async () => {
    const conversationId = (await createConversation(db, { tenantId: acme, userId: member })).id;
    const dying = identity();
    await writeHeartbeat(db, dying);
    const agent = new AgentService({
      gateway: scriptedGateway(new ScriptedModel([{ text: "one two three four five" }])),
      registry: new ToolRegistry(),
      store: new DrizzleConversationStore(async () => db),
      observer: new GovernanceRecorder(async () => db, { instanceId: dying.id }),
    });
    const events = agent.send(
      { tenantId: acme, userId: member, role: "member", conversationId },
      { message: "Summarise my week", model: "scripted" },
      new AbortController().signal,
    );
    let turnId = "";
    // The process "dies" at the first text: the generator is left suspended, never returned (a for-await break
    // would run its finally), so nothing after that point runs, as with kill -9.
    for (;;) {
      const { value, done } = await events.next();
      if (done) throw new Error("the turn ended; it should have been cut off mid-answer");
      const e = value as AgentEvent;
      if (e.type === "turn") turnId = e.turnId;
      if (e.type === "text") break;
    }
    expect(await statusOf(turnId)).toBe("running");
    expect((await getTurnOrThrow(db, { tenantId: acme, turnId })).instanceId).toBe(dying.id);
    expect(await sweepInterruptedTurns(db)).toBe(0);
    await db
      .update(instance)
      .set({ heartbeatAt: sql`now() - interval '1 minute'` })
      .where(eq(instance.id, dying.id));
    expect(await sweepInterruptedTurns(db)).toBe(1);
    expect(await statusOf(turnId)).toBe("interrupted");
    const messages = await db
      .select()
      .from(sysAgentMessage)
      .where(eq(sysAgentMessage.sessionId, conversationId));
    expect(messages.map((m) => [m.role, m.parts.content, m.turnId])).toEqual([
      ["user", "Summarise my week", turnId],
    ]);
  });

  it("a turn swept while its process was in fact alive closes with one rollup line, not two", async () => {
    const conversationId = (await createConversation(db, { tenantId: acme, userId: member })).id;
    const stalled = identity();
    await writeHeartbeat(db, stalled);
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    class SlowModel extends ScriptedModel {
      override async *stream(req: AdapterRequest, signal: AbortSignal) {
        await gate;
        yield* super.stream(req, signal);
      }
    }
    const agent = new AgentService({
      gateway: scriptedGateway(new SlowModel([{ text: "late but whole", usage: { input: 40, output: 4 } }])),
      registry: new ToolRegistry(),
      store: new DrizzleConversationStore(async () => db),
      observer: new GovernanceRecorder(async () => db, { instanceId: stalled.id }),
    });
    const done = (async () => {
      const events: AgentEvent[] = [];
      for await (const e of agent.send(
        { tenantId: acme, userId: member, role: "member", conversationId },
        { message: "hi", model: "scripted" },
        new AbortController().signal,
      ))
        events.push(e);
      return events;
    })();
    // The turn is running; its instance's heartbeat stalls and another instance sweeps it.
    await expect.poll(async () => (await db.select().from(sysAgentTurn)).length).toBe(1);
    await db
      .update(instance)
      .set({ heartbeatAt: sql`now() - interval '1 minute'` })
      .where(eq(instance.id, stalled.id));
    expect(await sweepInterruptedTurns(db)).toBe(1);
    expect(await rollupVsLedger()).toEqual({ rollup: 1, ledger: 1 });
    release();
    await done;
    const [turn] = await db.select().from(sysAgentTurn);
    expect(turn).toMatchObject({ status: "success", inputTokens: 40, outputTokens: 4 });
    const lines = await db.select().from(usageDaily).where(eq(usageDaily.tenantId, acme));
    expect(lines.filter((l) => l.requests !== 0)).toEqual([
      expect.objectContaining({ servedModel: "scripted-1", requests: 1, inputTokens: 40, outputTokens: 4 }),
    ]);
    expect(await rollupVsLedger()).toEqual({ rollup: 1, ledger: 1 });
  });
});
