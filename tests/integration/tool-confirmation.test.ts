import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { sysAgentAudit, sysAgentMessage } from "@/db/schema";
import { Confirmations } from "@/lib/agent/confirmations";
import { ToolRegistry } from "@/lib/agent/registry";
import { AgentService } from "@/lib/agent/service";
import { defineTool, StaticToolSet } from "@/lib/agent/tool";
import type { SessionClaims } from "@/lib/auth/session";
import { InMemoryConversationStore } from "@/lib/turns/conversation";
import type { AgentEvent } from "@/lib/turns/events";
import { call, ScriptedModel, scriptedGateway } from "../fakes/scripted-model";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";
import { session } from "../helpers/session";
import { readSse } from "../helpers/sse";
import { postTurn } from "../helpers/turns";

vi.mock("@/lib/auth/session", () => import("../helpers/session"));

const stop = await import("@/app/api/agent/turns/[id]/stop/route");
const confirm = await import("@/app/api/agent/turns/[id]/confirm/route");

const json = (body: unknown) => ({
  method: "POST",
  body: JSON.stringify(body),
  headers: { "content-type": "application/json" },
});
const send = (message: string) => postTurn({ message });
const decide = (turnId: string, callId: string, approve: boolean) =>
  confirm.POST(new Request(`http://app/api/agent/turns/${turnId}/confirm`, json({ callId, approve })), {
    params: Promise.resolve({ id: turnId }),
  });

/** The test's tools: one that moves money (needs the user's yes) and a slow read that does not. */
function confirmationTools(ran: { name: string; args: unknown }[]) {
  return new StaticToolSet("confirm_test", [
    defineTool({
      name: "transfer_funds",
      description: "Moves money",
      requiresConfirmation: true,
      parameters: z.object({ amount: z.number(), to: z.string(), apiKey: z.string().optional() }),
      execute: async (args) => {
        ran.push({ name: "transfer_funds", args });
        return { transferred: args.amount };
      },
    }),
    defineTool({
      name: "slow_lookup",
      description: "Reads slowly",
      parameters: z.object({}),
      execute: async () => {
        await new Promise((resolve) => setTimeout(resolve, 80));
        ran.push({ name: "slow_lookup", args: {} });
        return { found: true };
      },
    }),
  ]);
}

const SECRET = "sk-live-abcdefghijklmnopqrstuvwxyz0123456789";
const transfer = (id = "call_transfer") =>
  call("transfer_funds", { amount: 40, to: "ACME", apiKey: SECRET }, id);

describe.each(testDbKinds)("tools that need the user's confirmation, on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let member: SessionClaims;
  let ran: { name: string; args: unknown }[];
  let model: ScriptedModel;

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    member = { userId: await app.userId("member@acme.test"), tenantId: await app.tenantId("acme") };
  });
  afterAll(async () => {
    await app.close();
  });

  /** A fresh app whose model is the script and whose confirmations wait `timeoutMs`. */
  async function rebuild(steps: ConstructorParameters<typeof ScriptedModel>[0], timeoutMs = 5_000) {
    ran = [];
    model = new ScriptedModel(steps, { text: "Done." });
    const built = await app.rebuild({
      gateway: scriptedGateway(model),
      env: { ...process.env, TOOL_CONFIRMATION_TIMEOUT_MS: String(timeoutMs) },
    });
    built.tools.registry.register(confirmationTools(ran));
  }
  beforeEach(() => {
    session.claims = member;
  });

  const auditOf = async (turnId: string) =>
    app.db
      .select()
      .from(sysAgentAudit)
      .where(and(eq(sysAgentAudit.turnId, turnId), eq(sysAgentAudit.tenantId, member.tenantId!)))
      .orderBy(sysAgentAudit.seq);
  /** The turn's record is written as it closes; the stream's end may come first. */
  const settled = async (turnId: string, type: string) => {
    for (let i = 0; i < 50; i++) {
      const events = await auditOf(turnId);
      if (events.some((e) => e.type === type)) return events;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return auditOf(turnId);
  };

  it("Approve runs the call: the confirm event streams while it waits (arguments masked), the decision is audited", async () => {
    await rebuild([{ toolCalls: [transfer()] }, { text: "Sent." }]);
    let turnId = "";
    const frames = await readSse(await send("pay ACME 40"), async (f) => {
      if (f.event === "turn") turnId = f.data.turnId as string;
      if (f.event === "confirm") {
        // Nothing has run yet: the turn waits for the decision.
        expect(ran).toEqual([]);
        const res = await decide(turnId, f.data.callId as string, true);
        expect(res.status).toBe(200);
        expect(await res.json()).toEqual({ callId: "call_transfer", decision: "approve" });
      }
    });
    const asked = frames.find((f) => f.event === "confirm")!.data;
    expect(asked).toMatchObject({ callId: "call_transfer", name: "transfer_funds", timeoutMs: 5_000 });
    expect(JSON.stringify(asked.args)).not.toContain(SECRET);
    expect(asked.args).toMatchObject({ amount: 40, to: "ACME" });
    expect(Date.parse(asked.expiresAt as string)).toBeGreaterThan(Date.now());
    expect(frames.find((f) => f.event === "confirmation")?.data).toMatchObject({
      callId: "call_transfer",
      decision: "approve",
      by: member.userId,
    });
    expect(frames.find((f) => f.event === "tool_result")?.data).toMatchObject({ ok: true });
    expect(ran).toEqual([{ name: "transfer_funds", args: { amount: 40, to: "ACME", apiKey: SECRET } }]);
    expect(frames.at(-1)).toMatchObject({ event: "done", data: { summary: { status: "success" } } });

    const audit = await settled(turnId, "answer");
    const decision = audit.find((e) => e.type === "confirmation")!;
    expect(decision.payload).toMatchObject({
      callId: "call_transfer",
      tool: "transfer_funds",
      decision: "approve",
      by: member.userId,
    });
    expect(decision.payload.waitedMs).toEqual(expect.any(Number));
    // In order: the call, the decision, then the result.
    const order = audit.map((e) => e.type).filter((t) => t.startsWith("tool_") || t === "confirmation");
    expect(order).toEqual(["tool_call", "confirmation", "tool_result"]);
    // The stored result carries the decision, for the drawer after a reload.
    const [stored] = await app.db
      .select()
      .from(sysAgentMessage)
      .where(and(eq(sysAgentMessage.turnId, turnId), eq(sysAgentMessage.role, "tool")));
    expect(stored?.parts.data).toMatchObject({ confirmation: "approve" });
  });

  it("Deny does not run the call: the model reads that the user denied it", async () => {
    await rebuild([{ toolCalls: [transfer()] }, { text: "Not sent." }]);
    let turnId = "";
    const frames = await readSse(await send("pay ACME 40"), async (f) => {
      if (f.event === "turn") turnId = f.data.turnId as string;
      if (f.event === "confirm") expect((await decide(turnId, "call_transfer", false)).status).toBe(200);
    });
    expect(ran).toEqual([]);
    const result = frames.find((f) => f.event === "tool_result")!.data;
    expect(result).toMatchObject({ ok: false });
    expect(JSON.parse(result.result as string)).toEqual({ error: "the user denied this call" });
    const seen = model.requests[1]!.messages.find((m) => m.role === "tool");
    expect(seen?.content).toBe('{"error":"the user denied this call"}');
    expect(
      (await settled(turnId, "confirmation")).find((e) => e.type === "confirmation")?.payload,
    ).toMatchObject({
      decision: "deny",
      by: member.userId,
    });
    // A second answer is too late.
    const again = await decide(turnId, "call_transfer", true);
    expect(again.status).toBe(409);
    expect((await again.json()).error.message).toBe("this call was already denied");
  });

  it("no answer within the time limit is a denial, audited as a timeout; a late answer is refused", async () => {
    await rebuild([{ toolCalls: [transfer()] }, { text: "No answer, so nothing was sent." }], 300);
    let turnId = "";
    const frames = await readSse(await send("pay ACME 40"), (f) => {
      if (f.event === "turn") turnId = f.data.turnId as string;
    });
    expect(ran).toEqual([]);
    expect(JSON.parse(frames.find((f) => f.event === "tool_result")!.data.result as string)).toEqual({
      error: "the user gave no answer within 300 ms: denied",
    });
    expect(frames.find((f) => f.event === "confirmation")?.data).toMatchObject({
      decision: "timeout",
      by: null,
    });
    const audit = await settled(turnId, "confirmation");
    const decision = audit.find((e) => e.type === "confirmation")!.payload;
    expect(decision).toMatchObject({ decision: "timeout", by: null, tool: "transfer_funds" });
    expect(decision.waitedMs as number).toBeGreaterThanOrEqual(250);
    const late = await decide(turnId, "call_transfer", true);
    expect(late.status).toBe(409);
    expect((await late.json()).error.message).toMatch(/time to answer ran out/);
  });

  it("Stop while a call waits cancels it: nothing runs, the turn is stopped, no decision is recorded", async () => {
    await rebuild([{ toolCalls: [transfer()] }]);
    let turnId = "";
    const frames = await readSse(await send("pay ACME 40"), async (f) => {
      if (f.event === "turn") turnId = f.data.turnId as string;
      if (f.event === "confirm") {
        const res = await stop.POST(new Request("http://app/x", { method: "POST" }), {
          params: Promise.resolve({ id: turnId }),
        });
        expect(res.status).toBe(202);
      }
    });
    expect(ran).toEqual([]);
    expect(frames.at(-1)).toMatchObject({ event: "done", data: { summary: { status: "stopped" } } });
    expect(frames.some((f) => f.event === "confirmation")).toBe(false);
    const audit = await settled(turnId, "stop");
    expect(audit.some((e) => e.type === "confirmation")).toBe(false);
    expect(audit.find((e) => e.type === "stop")?.payload).toMatchObject({ cancelledCalls: 0 });
    const late = await decide(turnId, "call_transfer", true);
    expect(late.status).toBe(409);
    expect((await late.json()).error.message).toMatch(/stopped/);
    expect(app.container.agent.confirmations.pending).toBe(0);
  });

  it("only the turn's own user decides: another user, another tenant or an unknown call get 404", async () => {
    await rebuild([{ toolCalls: [transfer()] }, { text: "Sent." }]);
    const admin = { userId: await app.userId("admin@acme.test"), tenantId: member.tenantId };
    const globex = { userId: await app.userId("admin@globex.test"), tenantId: await app.tenantId("globex") };
    let turnId = "";
    await readSse(await send("pay ACME 40"), async (f) => {
      if (f.event === "turn") turnId = f.data.turnId as string;
      if (f.event !== "confirm") return;
      for (const other of [admin, globex]) {
        session.claims = other;
        const refused = await decide(turnId, "call_transfer", true);
        expect(refused.status).toBe(404);
        expect((await refused.json()).error.message).toMatch(/no call of yours waits/);
      }
      session.claims = member;
      expect((await decide(turnId, "call_nope", true)).status).toBe(404);
      expect((await decide(crypto.randomUUID(), "call_transfer", true)).status).toBe(404);
      expect(ran).toEqual([]);
      expect((await decide(turnId, "call_transfer", true)).status).toBe(200);
    });
    expect(ran.map((r) => r.name)).toEqual(["transfer_funds"]);
    // An answer that is not a decision is a 422 naming the field.
    const bad = await confirm.POST(
      new Request("http://app/x", json({ callId: "call_transfer", approve: "yes" })),
      { params: Promise.resolve({ id: turnId }) },
    );
    expect(bad.status).toBe(422);
    expect((await bad.json()).error.fields.approve).toBeDefined();
  });

  it("a waiting call keeps its place while the round's other calls run and stream their results", async () => {
    await rebuild([
      { toolCalls: [transfer(), call("slow_lookup", {}, "call_slow")] },
      { text: "Both done." },
    ]);
    let turnId = "";
    const frames = await readSse(await send("pay and look"), async (f) => {
      if (f.event === "turn") turnId = f.data.turnId as string;
      // Decide only once the other call has finished: it ran while this one waited.
      if (f.event === "tool_result" && f.data.name === "slow_lookup")
        expect((await decide(turnId, "call_transfer", true)).status).toBe(200);
    });
    const events = frames.map((f) => `${f.event}:${f.data.name ?? ""}`);
    expect(events.indexOf("confirm:transfer_funds")).toBeLessThan(events.indexOf("tool_result:slow_lookup"));
    expect(events.indexOf("tool_result:slow_lookup")).toBeLessThan(
      events.indexOf("confirmation:transfer_funds"),
    );
    expect(ran.map((r) => r.name)).toEqual(["slow_lookup", "transfer_funds"]);
    // Results reach the model in call order all the same.
    expect(model.requests[1]!.messages.filter((m) => m.role === "tool").map((m) => m.toolCallId)).toEqual([
      "call_transfer",
      "call_slow",
    ]);
  });
});

describe("tools that need confirmation where no user can be asked", () => {
  it("a turn without a way to ask (a schedule, a sub-agent) does not run them, and says why", async () => {
    const ran: { name: string; args: unknown }[] = [];
    const registry = new ToolRegistry().register(confirmationTools(ran));
    const model = new ScriptedModel([{ toolCalls: [transfer()] }, { text: "Could not." }]);
    const store = new InMemoryConversationStore();
    const confirmations = new Confirmations({ timeoutMs: 5_000 });
    const agent = new AgentService({ gateway: scriptedGateway(model), registry, store, confirmations });
    const events: AgentEvent[] = [];
    for await (const e of agent.send(
      { tenantId: "t1", userId: "u1", role: "member", conversationId: "c1" },
      { message: "pay", model: "scripted", source: "schedule" },
      new AbortController().signal,
    ))
      events.push(e);
    expect(ran).toEqual([]);
    expect(events.some((e) => e.type === "confirm")).toBe(false);
    const result = events.find((e) => e.type === "tool_result");
    expect(result && JSON.parse(result.result)).toEqual({
      error: "transfer_funds needs the user's confirmation, and no user can be asked here: not run",
    });
    expect(confirmations.pending).toBe(0);
  });
});
