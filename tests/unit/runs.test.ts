import { describe, expect, it } from "vitest";
import type { ReplayTurn, RunCall } from "@/features/replay/contracts";
import { buildRunTimeline } from "@/features/replay/run-view";
import { runIdOf } from "@/features/v1/server/attribution";
import { validRunId } from "@/lib/turns/run-id";

describe("a run id", () => {
  it("is 1 to 128 printable ASCII characters, with no space at either end", () => {
    for (const good of ["a", "run-42", "agent/task#7 step 2", "~!@#$%^&*()", "x".repeat(128)])
      expect(validRunId(good)).toBe(good);
    for (const bad of [
      "",
      " a",
      "a ",
      "x".repeat(129),
      "tab\there",
      "café",
      "nul\u0000",
      "line\nbreak",
      42,
      null,
    ])
      expect(validRunId(bad)).toBeNull();
  });

  it("comes from the header first, else from OpenAI's metadata map, never from Anthropic's metadata", () => {
    const header = (value?: string) => (name: string) => (name === "x-tollgate-run-id" ? value : undefined);
    const body = { model: "m", metadata: { run_id: "from-body" } };
    expect(runIdOf("openai-chat", body, header("from-header"))).toEqual({ runId: "from-header" });
    expect(runIdOf("openai-responses", body, header())).toEqual({ runId: "from-body" });
    expect(runIdOf("anthropic-messages", body, header())).toEqual({ runId: undefined });
    expect(runIdOf("openai-chat", { model: "m" }, header())).toEqual({ runId: undefined });
    expect(runIdOf("openai-chat", body, header(""))).toEqual({
      refused: { param: "x-tollgate-run-id", message: expect.stringContaining("1 to 128") },
    });
    expect(runIdOf("openai-chat", { model: "m", metadata: { run_id: 7 } }, header())).toEqual({
      refused: { param: "metadata.run_id", message: expect.stringContaining("printable ASCII") },
    });
  });
});

const call = (over: Partial<ReplayTurn>): RunCall => ({
  turn: {
    id: "t",
    tenantId: "x",
    tenantName: null,
    userId: null,
    userEmail: null,
    apiKeyId: null,
    apiKeyName: null,
    conversationId: null,
    source: "api",
    status: "success",
    requestedModel: "team-gpt",
    servedProvider: null,
    servedAdapter: null,
    servedModel: "gpt-4o-mini",
    attempts: 1,
    fallbackIndex: 0,
    routing: null,
    units: null,
    inputTokens: 0,
    cachedInputTokens: 0,
    cacheWriteTokens: 0,
    outputTokens: 0,
    reasoningTokens: 0,
    cost: "0",
    costStatus: "priced",
    rounds: 1,
    firstTokenMs: null,
    latencyMs: 100,
    cacheHits: 0,
    errorClass: null,
    errorMessage: null,
    endUser: null,
    skills: [],
    toolTrace: [],
    startedAt: "2026-12-01T10:00:00.000Z",
    ...over,
  },
  events: [],
});

describe("a run's timeline", () => {
  it("places each call at its start on the run's clock, tools over /mcp as tools and failures as failures", () => {
    const { rows, totalMs } = buildRunTimeline([
      call({ id: "a", latencyMs: 400, firstTokenMs: 120 }),
      call({
        id: "b",
        source: "mcp",
        requestedModel: "tool:current_time",
        servedModel: null,
        startedAt: "2026-12-01T10:00:00.500Z",
        latencyMs: 30,
      }),
      call({ id: "c", status: "failed", startedAt: "2026-12-01T10:00:01.000Z", latencyMs: 250 }),
      call({ id: "d", status: "running", startedAt: "2026-12-01T10:00:02.000Z", latencyMs: null }),
    ]);
    expect(rows.map((r) => [r.key, r.kind, r.label, r.startMs, r.durationMs, r.ok])).toEqual([
      ["a", "model", "1. gpt-4o-mini", 0, 400, true],
      ["b", "tool", "2. current_time", 500, 30, true],
      ["c", "model", "3. gpt-4o-mini", 1_000, 250, false],
      ["d", "model", "4. gpt-4o-mini", 2_000, 0, null],
    ]);
    expect(rows[0]!.firstTokenMs).toBe(120);
    expect(totalMs).toBe(2_000);
    expect(buildRunTimeline([])).toEqual({ rows: [], totalMs: 0 });
  });
});
