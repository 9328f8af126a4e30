import { describe, expect, it } from "vitest";
import type { ReplayEvent, ReplayTurn } from "@/features/replay/contracts";
import { buildReplay, type ModelStep, type ToolStep } from "@/features/replay/replay-view";
import { decodeJsonText, decodeNested } from "@/lib/core/text/json-text";

const START = "2026-11-30T10:00:00.000Z";

const turn = (over: Partial<ReplayTurn> = {}): ReplayTurn => ({
  id: "0193a0b0-0000-7000-8000-000000000001",
  tenantId: "t",
  tenantName: "Acme",
  userId: "u",
  userEmail: "admin@acme.test",
  apiKeyId: null,
  apiKeyName: null,
  conversationId: "c",
  source: "drawer",
  status: "success",
  requestedModel: "default",
  servedProvider: "openai",
  servedAdapter: "openai",
  servedModel: "gpt-4o-mini",
  attempts: 1,
  fallbackIndex: 0,
  routing: null,
  units: null,
  inputTokens: 900,
  cachedInputTokens: 0,
  cacheWriteTokens: 0,
  outputTokens: 120,
  reasoningTokens: 0,
  cost: "0.0002",
  costStatus: "priced",
  rounds: 2,
  firstTokenMs: 400,
  latencyMs: 2_000,
  cacheHits: 0,
  errorClass: null,
  errorMessage: null,
  endUser: null,
  skills: [],
  toolTrace: [],
  startedAt: START,
  ...over,
});

let seq = 0;
const ev = (type: string, payload: Record<string, unknown>, writtenMs = 0): ReplayEvent => ({
  seq: ++seq,
  type,
  createdAt: new Date(Date.parse(START) + writtenMs).toISOString(),
  payload,
});

/** A drawer turn as the recorder writes it now: two tools in parallel in round 1, then the answer. */
function recordedTurn(): ReplayEvent[] {
  seq = 0;
  return [
    ev("request", { model: "default", source: "drawer", message: "open orders?", toolsOffered: ["a", "b"] }),
    ev("tool_call", { callId: "c1", name: "query_orders", args: { status: "open" }, round: 1, atMs: 600 }),
    ev("tool_call", { callId: "c2", name: "current_time", args: {}, round: 1, atMs: 610 }),
    ev("model_call", {
      round: 1,
      lastCall: false,
      outcome: "ok",
      servedProvider: "openai",
      servedModel: "gpt-4o-mini",
      fallbackIndex: 0,
      attempts: [{ provider: "openai", model: "gpt-4o-mini", outcome: "ok", durationMs: 600 }],
      startMs: 20,
      durationMs: 600,
      firstTokenMs: 380,
      usage: {
        inputTokens: 400,
        cachedInputTokens: 0,
        cacheWriteTokens: 0,
        outputTokens: 30,
        reasoningTokens: 0,
      },
      cost: "0.0001",
      cacheHit: false,
      toolCalls: 2,
      atMs: 620,
    }),
    ev("tool_result", {
      callId: "c2",
      name: "current_time",
      ok: true,
      durationMs: 5,
      result: '"2026-11-30T10:00:01Z"',
      atMs: 630,
      startMs: 625,
    }),
    ev("tool_result", {
      callId: "c1",
      name: "query_orders",
      ok: true,
      durationMs: 300,
      // Stored as a string holding JSON whose `items` field is itself a JSON string (encoded twice).
      result: JSON.stringify({ count: 1, items: JSON.stringify([{ id: "A-1", total: 12.5 }]) }),
      atMs: 925,
      startMs: 625,
    }),
    ev("model_call", {
      round: 2,
      lastCall: false,
      outcome: "ok",
      servedProvider: "openai",
      servedModel: "gpt-4o-mini",
      fallbackIndex: 0,
      attempts: [],
      startMs: 930,
      durationMs: 1_000,
      firstTokenMs: 300,
      usage: {
        inputTokens: 500,
        cachedInputTokens: 0,
        cacheWriteTokens: 0,
        outputTokens: 90,
        reasoningTokens: 0,
      },
      cost: "0.0001",
      cacheHit: false,
      toolCalls: 0,
      atMs: 1_930,
    }),
    ev("answer", { text: "You have one open order.", status: "success", atMs: 1_990 }),
  ];
}

describe("decoding JSON stored as text", () => {
  it("reads a string holding JSON as its value, through every level of encoding", () => {
    const once = JSON.stringify({ a: 1 });
    expect(decodeJsonText(once)).toEqual({ kind: "json", value: { a: 1 } });
    expect(decodeJsonText(JSON.stringify(once))).toEqual({ kind: "json", value: { a: 1 } });
    expect(decodeJsonText(JSON.stringify(JSON.stringify(once)))).toEqual({ kind: "json", value: { a: 1 } });
  });

  it("decodes JSON strings nested inside values, and leaves plain strings alone", () => {
    expect(decodeNested({ items: '[{"id":"A-1"}]', note: "42", name: "{not json" })).toEqual({
      items: [{ id: "A-1" }],
      note: "42",
      name: "{not json",
    });
  });

  it("keeps prose and JSON cut at the size limit as text, saying when it was cut", () => {
    expect(decodeJsonText("The order shipped.")).toEqual({
      kind: "text",
      text: "The order shipped.",
      truncated: false,
    });
    const cut = `{"rows":[1,2,3\n…[truncated: 120 more characters]`;
    expect(decodeJsonText(cut)).toEqual({ kind: "text", text: cut, truncated: true });
    expect(decodeJsonText(`"abc…[40 more characters]`)).toMatchObject({ kind: "text", truncated: true });
  });

  it("reads a JSON string whose value is prose as that prose, unescaped", () => {
    expect(decodeJsonText('"line one\\nline \\"two\\""')).toEqual({
      kind: "text",
      text: 'line one\nline "two"',
      truncated: false,
    });
  });
});

describe("building a turn's replay", () => {
  it("orders a recorded turn as it was lived: request, model call, its tools, next call, answer", () => {
    const replay = buildReplay(turn(), recordedTurn());
    expect(replay.steps.map((s) => s.kind)).toEqual(["request", "model", "tool", "tool", "model", "answer"]);
    expect(replay.missing).toEqual([]);
    const [first, second] = replay.steps.filter((s): s is ModelStep => s.kind === "model");
    expect(first).toMatchObject({
      round: 1,
      seq: 4,
      source: "recorded",
      startMs: 20,
      durationMs: 600,
      firstTokenMs: 380,
    });
    expect(first!.toolCalls).toEqual([
      { seq: 2, name: "query_orders" },
      { seq: 3, name: "current_time" },
    ]);
    expect(second).toMatchObject({ round: 2, toolCalls: [] });
  });

  it("pairs each tool call with its result, decoded, and marks tools of one round as parallel", () => {
    const tools = buildReplay(turn(), recordedTurn()).steps.filter((s): s is ToolStep => s.kind === "tool");
    expect(tools.map((t) => [t.name, t.callSeq, t.resultSeq, t.parallel])).toEqual([
      ["query_orders", 2, 6, true],
      ["current_time", 3, 5, true],
    ]);
    expect(tools[0]!.result).toEqual({
      kind: "json",
      value: { count: 1, items: [{ id: "A-1", total: 12.5 }] },
    });
    expect(tools[1]!.result).toEqual({ kind: "text", text: "2026-11-30T10:00:01Z", truncated: false });
    expect(tools[0]).toMatchObject({ startMs: 625, durationMs: 300 });
  });

  it("keeps the message a tool added for the model (load_image): its text and its images by name, never bytes", () => {
    seq = 0;
    const events = [
      ev("tool_call", { callId: "l1", name: "load_image", args: { file_id: "f1" }, round: 1 }),
      ev("tool_result", {
        callId: "l1",
        name: "load_image",
        ok: true,
        durationMs: 12,
        result: '{"loaded":"dot.png"}',
        message: {
          text: "[load_image] The image below is the file f1 of this conversation.",
          images: [{ type: "image/png", size: 2048, name: "dot.png", fileId: "f1" }, { bogus: true }],
        },
      }),
      ev("tool_call", { callId: "c2", name: "current_time", args: {}, round: 1 }),
      ev("tool_result", { callId: "c2", name: "current_time", ok: true, result: "now", message: "not one" }),
    ];
    const tools = buildReplay(turn(), events).steps.filter((s): s is ToolStep => s.kind === "tool");
    expect(tools[0]!.message).toEqual({
      text: "[load_image] The image below is the file f1 of this conversation.",
      images: [{ type: "image/png", size: 2048, name: "dot.png" }],
    });
    expect(tools[1]!.message).toBeNull();
  });

  it("draws the waterfall: model calls, parallel tools overlapping, and the waiting between them", () => {
    const { waterfall, totalMs } = buildReplay(turn(), recordedTurn());
    expect(totalMs).toBe(2_000);
    expect(waterfall.map((r) => [r.kind, r.label, r.startMs, r.durationMs])).toEqual([
      ["wait", "", 0, 20],
      ["model", "gpt-4o-mini", 20, 600],
      ["tool", "query_orders", 625, 300],
      ["tool", "current_time", 625, 5],
      ["model", "gpt-4o-mini", 930, 1_000],
      ["wait", "", 1_930, 70],
    ]);
    // The two tools overlap in time: drawn one under the other, not one after the other.
    const [a, b] = waterfall.filter((r) => r.kind === "tool");
    expect(a!.startMs).toBe(b!.startMs);
  });

  it("replays an older drawer turn without model call or answer events, and says what is missing", () => {
    seq = 0;
    const events = [
      ev("request", { model: "default", source: "drawer", message: "hi", toolsOffered: [] }, 3),
      ev("tool_call", { callId: "c1", name: "recall", args: {}, round: 1 }, 500),
      ev(
        "tool_result",
        { callId: "c1", name: "recall", ok: false, durationMs: 40, result: '{"error":"nope"}' },
        545,
      ),
    ];
    const replay = buildReplay(turn({ rounds: 2, status: "success" }), events);
    expect(replay.steps.map((s) => s.kind)).toEqual(["request", "model", "tool", "model"]);
    const models = replay.steps.filter((s): s is ModelStep => s.kind === "model");
    expect(models.map((m) => [m.round, m.source, m.servedModel, m.durationMs])).toEqual([
      [1, "inferred", null, null],
      [2, "inferred", "gpt-4o-mini", null],
    ]);
    expect(replay.missing).toEqual(["model_calls", "answer"]);
    // The tool's timing comes from when its result was written.
    const tool = replay.steps.find((s): s is ToolStep => s.kind === "tool")!;
    expect(tool).toMatchObject({ startMs: 505, durationMs: 40, ok: false });
    expect(tool.result).toEqual({ kind: "json", value: { error: "nope" } });
  });

  it("builds an API call's single model call from its ledger row, with its passed-through tool calls", () => {
    seq = 0;
    const events = [
      ev("request", { model: "default", source: "api", message: "[1 message]", toolsOffered: [] }),
      ev("tool_call", { callId: "t1", name: "lookup", args: { q: "x" }, round: 1 }),
    ];
    const replay = buildReplay(
      turn({
        source: "api",
        rounds: 1,
        attempts: 3,
        fallbackIndex: 1,
        servedProvider: "anthropic",
        servedModel: "claude-haiku-4-5",
        latencyMs: 900,
        firstTokenMs: 250,
      }),
      events,
    );
    expect(replay.steps.map((s) => s.kind)).toEqual(["request", "model", "tool"]);
    expect(replay.steps[1]).toMatchObject({
      source: "ledger",
      servedModel: "claude-haiku-4-5",
      attemptCount: 3,
      fallbackIndex: 1,
      startMs: 0,
      durationMs: 900,
      firstTokenMs: 250,
      usage: { inputTokens: 900, outputTokens: 120 },
      cost: "0.0002",
    });
    expect(replay.steps[2]).toMatchObject({ passthrough: true, result: null });
    // Nothing is "missing" for an API call: its one call is the ledger row, and it has no answer event by design.
    expect(replay.missing).toEqual([]);
    expect(replay.waterfall.map((r) => r.kind)).toEqual(["model"]);
  });

  it("shows a tool called over /mcp as its request and the tool, with no model step and nothing missing", () => {
    seq = 0;
    const events = [
      ev("request", {
        model: "tool:query_orders",
        source: "mcp",
        message: "query_orders {}",
        toolsOffered: [],
      }),
      ev("tool_call", { callId: "m1", name: "query_orders", args: {}, round: 0, atMs: 2 }),
      ev("tool_result", {
        callId: "m1",
        name: "query_orders",
        ok: true,
        durationMs: 30,
        result: "{}",
        atMs: 32,
      }),
    ];
    const replay = buildReplay(
      turn({
        source: "mcp",
        conversationId: null,
        requestedModel: "tool:query_orders",
        servedProvider: null,
        servedAdapter: null,
        servedModel: null,
        rounds: 0,
        inputTokens: 0,
        outputTokens: 0,
        cost: "0",
        firstTokenMs: null,
        latencyMs: 35,
      }),
      events,
    );
    expect(replay.steps.map((s) => s.kind)).toEqual(["request", "tool"]);
    expect(replay.steps[1]).toMatchObject({ name: "query_orders", ok: true, startMs: 2, durationMs: 30 });
    expect(replay.missing).toEqual([]);
    expect(replay.waterfall.map((r) => r.kind)).toEqual(["tool"]);
  });

  it("places guardrails, fallbacks, errors and stops where they happened", () => {
    seq = 0;
    const events = [
      ev("request", { model: "default", source: "drawer", message: "hi", toolsOffered: [] }),
      ev("fallback", { message: "openai/gpt-4o-mini failed (server); trying the next model.", atMs: 300 }),
      ev("model_call", {
        round: 1,
        outcome: "error",
        startMs: 5,
        durationMs: 800,
        attempts: [],
        error: { class: "server", message: "boom" },
      }),
      ev("error", { class: "server", message: "boom", atMs: 810 }),
    ];
    const replay = buildReplay(turn({ status: "failed", rounds: 1, latencyMs: 820 }), events);
    expect(replay.steps.map((s) => s.kind)).toEqual(["request", "fallback", "model", "error"]);
    expect(replay.steps[2]).toMatchObject({ outcome: "error", error: { class: "server", message: "boom" } });
    expect(replay.missing).toEqual([]);
  });
});
