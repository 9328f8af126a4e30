import { describe, expect, it } from "vitest";
import {
  type Judge,
  judgeMessages,
  parseVerdict,
  type ScoreContext,
  scoreAll,
  scoreOne,
  scorerProblems,
  subsetMatch,
} from "@/features/evals/server/scorers";

const ctx = (over: Partial<ScoreContext> = {}): ScoreContext => ({
  input: { messages: [{ role: "user", content: "What is the capital of France?" }] },
  expected: "Paris",
  output: "The capital of France is Paris.",
  toolCalls: [],
  latencyMs: 120,
  cost: "0.0000270000",
  ...over,
});

describe("evaluation scorers", () => {
  it("exact: trimmed, case-sensitive by default, against the expected output or a value", () => {
    expect(scoreOne({ type: "exact" }, ctx({ output: "  Paris\n" }))).toMatchObject({
      passed: true,
      score: 1,
    });
    expect(scoreOne({ type: "exact" }, ctx({ output: "paris" })).passed).toBe(false);
    expect(scoreOne({ type: "exact", caseSensitive: false }, ctx({ output: "paris" })).passed).toBe(true);
    expect(scoreOne({ type: "exact", value: "Lyon" }, ctx({ output: "Paris" }))).toMatchObject({
      passed: false,
      score: 0,
      reason: 'the answer does not equal "Lyon"',
    });
    expect(scoreOne({ type: "exact" }, ctx({ expected: null })).reason).toBe(
      "no expected output to compare with",
    );
    // A JSON expected output is compared as JSON text.
    expect(scoreOne({ type: "exact" }, ctx({ expected: { a: 1 }, output: '{"a":1}' })).passed).toBe(true);
  });

  it("contains: case-insensitive by default", () => {
    expect(scoreOne({ type: "contains" }, ctx()).passed).toBe(true);
    expect(scoreOne({ type: "contains" }, ctx({ output: "PARIS!" })).passed).toBe(true);
    expect(scoreOne({ type: "contains", caseSensitive: true }, ctx({ output: "PARIS!" })).passed).toBe(false);
    expect(scoreOne({ type: "contains" }, ctx({ output: "Lyon" })).passed).toBe(false);
  });

  it("regex: matches with flags; a bad pattern fails with a reason and is reported before a run", () => {
    expect(scoreOne({ type: "regex", pattern: "capital of \\w+" }, ctx())).toMatchObject({
      passed: true,
      reason: 'matched "capital of France"',
    });
    expect(scoreOne({ type: "regex", pattern: "^paris$", flags: "i" }, ctx({ output: "PARIS" })).passed).toBe(
      true,
    );
    expect(scoreOne({ type: "regex", pattern: "^\\d+$" }, ctx()).passed).toBe(false);
    expect(scoreOne({ type: "regex", pattern: "(" }, ctx()).reason).toMatch(/^invalid regular expression/);
    expect(Object.keys(scorerProblems([{ type: "contains" }, { type: "regex", pattern: "(" }]))).toEqual([
      "scorers.1",
    ]);
  });

  it("json_schema: the answer (or its fenced JSON) validates against the schema", () => {
    const schema = {
      type: "object",
      required: ["city", "population"],
      properties: { city: { type: "string" }, population: { type: "integer", minimum: 0 } },
    };
    expect(
      scoreOne({ type: "json_schema", schema }, ctx({ output: '{"city":"Paris","population":2100000}' }))
        .passed,
    ).toBe(true);
    expect(
      scoreOne(
        { type: "json_schema", schema },
        ctx({ output: 'Here:\n```json\n{"city":"Paris","population":1}\n```' }),
      ).passed,
    ).toBe(true);
    const bad = scoreOne(
      { type: "json_schema", schema },
      ctx({ output: '{"city":"Paris","population":-1}' }),
    );
    expect(bad.passed).toBe(false);
    expect(bad.reason).toContain("/population");
    expect(scoreOne({ type: "json_schema", schema }, ctx({ output: "Paris" })).reason).toBe(
      "the answer is not JSON",
    );
    expect(Object.keys(scorerProblems([{ type: "json_schema", schema: { type: "nope" } }]))).toEqual([
      "scorers.0",
    ]);
  });

  it("tool_called: by name, with arguments matched as a subset", () => {
    const calls = [
      {
        name: "lookup_order",
        args: { id: "A-17", options: { verbose: true, lang: "en" }, tags: ["x", "y"] },
      },
    ];
    expect(scoreOne({ type: "tool_called", name: "lookup_order" }, ctx({ toolCalls: calls })).passed).toBe(
      true,
    );
    expect(
      scoreOne(
        {
          type: "tool_called",
          name: "lookup_order",
          args: { id: "A-17", options: { verbose: true }, tags: ["y"] },
        },
        ctx({ toolCalls: calls }),
      ).passed,
    ).toBe(true);
    const wrong = scoreOne(
      { type: "tool_called", name: "lookup_order", args: { id: "B-2" } },
      ctx({ toolCalls: calls }),
    );
    expect(wrong).toMatchObject({ passed: false, score: 0.5 });
    expect(scoreOne({ type: "tool_called", name: "refund" }, ctx({ toolCalls: calls })).reason).toBe(
      "refund was not called (called: lookup_order)",
    );
    expect(scoreOne({ type: "tool_called", name: "refund" }, ctx()).passed).toBe(false);
    expect(subsetMatch({ a: [1] }, { a: [2, 1], b: 3 })).toBe(true);
    expect(subsetMatch({ a: { b: 1 } }, { a: null })).toBe(false);
  });

  it("numeric: the first number of the answer within the tolerance of the expected one", () => {
    expect(
      scoreOne({ type: "numeric", tolerance: 0.01 }, ctx({ expected: 3.14, output: "Pi is about 3.14159" }))
        .passed,
    ).toBe(true);
    expect(scoreOne({ type: "numeric" }, ctx({ expected: "42", output: "42" })).passed).toBe(true);
    const off = scoreOne({ type: "numeric", value: 100, tolerance: 5 }, ctx({ output: "about 110" }));
    expect(off.passed).toBe(false);
    expect(off.score).toBeCloseTo(0.9);
    expect(scoreOne({ type: "numeric", value: 1 }, ctx({ output: "none" })).reason).toBe(
      "the answer has no number",
    );
    expect(scoreOne({ type: "numeric" }, ctx({ expected: "Paris" })).passed).toBe(false);
  });

  it("latency and cost thresholds (cost exact; an unpriced call fails)", () => {
    expect(scoreOne({ type: "latency", maxMs: 120 }, ctx()).passed).toBe(true);
    expect(scoreOne({ type: "latency", maxMs: 119 }, ctx()).passed).toBe(false);
    expect(scoreOne({ type: "cost", maxUsd: "0.000027" }, ctx()).passed).toBe(true);
    expect(scoreOne({ type: "cost", maxUsd: "0.0000269999" }, ctx()).passed).toBe(false);
    expect(scoreOne({ type: "cost", maxUsd: "1" }, ctx({ cost: null })).reason).toBe(
      "the call has no price (unpriced model)",
    );
  });

  it("reads a judge's verdict robustly", () => {
    expect(parseVerdict('{"score": 0.8, "reasoning": "mostly right"}')).toEqual({
      score: 0.8,
      reasoning: "mostly right",
    });
    expect(parseVerdict('Sure!\n```json\n{"score":"1","reasoning":"exact"}\n```')).toEqual({
      score: 1,
      reasoning: "exact",
    });
    expect(parseVerdict('My verdict: {"score": 75, "reason": "ok"} done')).toEqual({
      score: 0.75,
      reasoning: "ok",
    });
    expect(parseVerdict("score: 0.3\nreasoning: too vague")).toEqual({ score: 0.3, reasoning: "too vague" });
    expect(parseVerdict("I cannot grade this.")).toBeNull();
    expect(parseVerdict('{"score": -2}')).toBeNull();
  });

  it("the judge: asked with the rubric, input, reference and answer; passes at its threshold; its cost is added", async () => {
    const asked: { model: string; content: string }[] = [];
    const verdicts = [
      '{"score": 0.9, "reasoning": "names Paris"}',
      "no idea",
      '{"score": 0.4, "reasoning": "vague"}',
    ];
    const judge: Judge = async (model, messages) => {
      asked.push({ model, content: messages.map((m) => m.content).join("\n") });
      return { answer: verdicts.shift()!, cost: "0.0001" };
    };
    const scorers = [
      { type: "contains" as const },
      { type: "llm_judge" as const, rubric: "Names the capital correctly.", model: "judge", threshold: 0.5 },
    ];
    const first = await scoreAll(scorers, ctx(), judge);
    expect(first).toMatchObject({ passed: true, judgeCost: "0.0001" });
    expect(first.score).toBeCloseTo(0.95);
    expect(first.scores[1]).toMatchObject({
      type: "llm_judge",
      passed: true,
      score: 0.9,
      reason: "0.9 (threshold 0.5): names Paris",
    });
    expect(asked[0]!.model).toBe("judge");
    expect(asked[0]!.content).toContain("Names the capital correctly.");
    expect(asked[0]!.content).toContain("What is the capital of France?");
    expect(asked[0]!.content).toContain("EXPECTED (reference answer):\nParis");
    expect(asked[0]!.content).toContain("ANSWER:\nThe capital of France is Paris.");
    const unreadable = await scoreAll(scorers, ctx(), judge);
    expect(unreadable.passed).toBe(false);
    expect(unreadable.scores[1]!.reason).toMatch(/^the judge's answer had no score/);
    const low = await scoreAll(scorers, ctx(), judge);
    expect(low.scores[1]).toMatchObject({ passed: false, score: 0.4 });
    // A refused judge call fails the scorer and tells the runner to stop at the budget.
    const refused = await scoreAll(scorers, ctx(), async () => ({
      answer: "",
      cost: null,
      error: { class: "budget_exceeded", message: "the daily budget is spent" },
    }));
    expect(refused.budget?.class).toBe("budget_exceeded");
    expect(refused.passed).toBe(false);
    expect(judgeMessages("r", ctx({ expected: null })).at(-1)!.content).not.toContain("EXPECTED");
  });
});
