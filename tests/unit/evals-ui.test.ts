import { describe, expect, it } from "vitest";
import {
  chartPoints,
  compareItems,
  disagrees,
  formatEta,
  markDifferences,
  targetLabel,
} from "@/features/evals/compare";
import type { RunItemView, TargetSummary } from "@/features/evals/contracts";
import { csvRows, guessFormat, inputSummary, parseCsv, parseJsonl } from "@/features/evals/import";
import {
  draftsToScorers,
  draftToScorer,
  draftToTarget,
  newDraft,
  scorerSummary,
} from "@/features/evals/scorer-drafts";

describe("pasted dataset items", () => {
  it("reads JSONL line by line, naming each bad line and why, and keeps the good ones", () => {
    const text = [
      '{"input": {"messages": [{"role": "user", "content": "2+2?"}]}, "expected": "4"}',
      "",
      "{not json",
      '{"input": "capital of France?", "expected": {"city": "Paris"}, "metadata": {"tag": "geo"}}',
      '{"input": {"messages": []}}',
      '["an", "array"]',
      '{"input": {"messages": [{"role": "robot", "content": "x"}]}}',
      '{"input": {"variables": {"ticket": "refund"}}, "extra": 1}',
    ].join("\n");
    const result = parseJsonl(text);
    expect(result.items).toHaveLength(2);
    expect(result.items[1]).toEqual({
      input: { messages: [{ role: "user", content: "capital of France?" }] },
      expected: { city: "Paris" },
      metadata: { tag: "geo" },
    });
    expect(result.errors.map((e) => e.line)).toEqual([3, 5, 6, 7, 8]);
    expect(result.errors[0]!.error).toBe("not valid JSON");
    expect(result.errors[1]!.error).toMatch(/^input/);
    expect(result.errors[1]!.error).toMatch(/at least one message|Invalid/);
    expect(result.errors[3]!.error).toMatch(/^input/);
    expect(result.errors[4]!.error).toMatch(/extra|Unrecognized/i);
    // The preview lists every non-blank line in order, good and bad.
    expect(result.lines.map((l) => l.line)).toEqual([1, 3, 4, 5, 6, 7, 8]);
  });

  it("reads CSV with quoted commas, doubled quotes and line breaks, text inputs as one user message", () => {
    const text =
      'input,expected\n"Hello, ""world""",hi\n"two\nlines",\n"{""variables"": {""a"": ""b""}}","{""n"": 1}"\n';
    const rows = csvRows(text);
    expect(rows.map((r) => r.line)).toEqual([1, 2, 3, 5]);
    const result = parseCsv(text);
    expect(result.errors).toEqual([]);
    expect(result.items).toEqual([
      { input: { messages: [{ role: "user", content: 'Hello, "world"' }] }, expected: "hi" },
      { input: { messages: [{ role: "user", content: "two\nlines" }] } },
      { input: { variables: { a: "b" } }, expected: { n: 1 } },
    ]);
  });

  it("names the CSV lines it cannot use: no input column, an empty input, too many cells, bad metadata", () => {
    expect(parseCsv("question,answer\nq,a").errors).toEqual([
      { line: 1, error: "the header row must name an input column" },
    ]);
    const result = parseCsv('input,expected,metadata\n,x,\na,b,c,d\nok,,not json\nfine,yes,"{""k"":1}"\r\n');
    expect(result.errors).toEqual([
      { line: 2, error: "input: empty" },
      { line: 3, error: "4 cells, but the header names 3" },
      { line: 4, error: "metadata: not a JSON object" },
    ]);
    expect(result.items).toEqual([
      { input: { messages: [{ role: "user", content: "fine" }] }, expected: "yes", metadata: { k: 1 } },
    ]);
  });

  it("guesses the format and sums an input up in one line", () => {
    expect(guessFormat('  {"input": "x"}')).toBe("jsonl");
    expect(guessFormat("input,expected")).toBe("csv");
    expect(
      inputSummary({
        messages: [
          { role: "system", content: "be brief" },
          { role: "user", content: "first" },
          { role: "assistant", content: "ok" },
          { role: "user", content: "last" },
        ],
      }),
    ).toBe("last");
    expect(inputSummary({ variables: { a: "1", b: "2" } })).toBe("a=1, b=2");
  });
});

const cell = (itemId: string, targetIndex: number, over: Partial<RunItemView> = {}): RunItemView => ({
  itemId,
  targetIndex,
  status: "done",
  input: { messages: [{ role: "user", content: itemId }] },
  expected: "x",
  output: "x",
  passed: true,
  score: 1,
  scores: [],
  latencyMs: 10,
  cost: "0.001",
  turnId: null,
  error: null,
  ...over,
});

const target = (index: number, over: Partial<TargetSummary> = {}): TargetSummary => ({
  index,
  model: `m${index}`,
  done: 2,
  passed: 1,
  failures: 0,
  passRate: 0.5,
  meanScore: 0.5,
  cost: "0.0200",
  costPerPass: "0.02",
  p50LatencyMs: 10,
  p95LatencyMs: 20,
  ...over,
});

describe("the run comparison", () => {
  it("groups results per item, one cell per target, and flags items whose verdicts differ", () => {
    const rows = compareItems({
      targets: [target(0), target(1)],
      items: [
        cell("a", 0),
        cell("a", 1, { passed: false, score: 0 }),
        cell("b", 1),
        cell("b", 0),
        cell("c", 0),
        cell("c", 1, { status: "pending", passed: null, output: null }),
        cell("d", 0),
        cell("d", 1, { status: "failed", passed: null, error: "upstream 500" }),
      ],
    });
    expect(rows.map((r) => r.itemId)).toEqual(["a", "b", "c", "d"]);
    expect(rows[1]!.cells.map((c) => c?.targetIndex)).toEqual([0, 1]);
    expect(rows.map((r) => r.disagree)).toEqual([true, false, false, true]);
  });

  it("does not call one finished verdict a disagreement, nor two equal ones", () => {
    expect(disagrees([cell("a", 0), null])).toBe(false);
    expect(disagrees([cell("a", 0, { passed: false }), cell("a", 1, { passed: false })])).toBe(false);
    expect(disagrees([cell("a", 0, { passed: false }), cell("a", 1, { status: "failed", error: "x" })])).toBe(
      false,
    );
  });

  it("marks the words of an output that the first target's does not have", () => {
    expect(markDifferences("The answer is 4", "The answer is 4")).toEqual([
      { text: "The answer is 4", changed: false },
    ]);
    const marked = markDifferences("The answer is 5 apples", "The answer is 4");
    expect(marked.map((w) => w.text).join("")).toBe("The answer is 5 apples");
    expect(marked.filter((w) => w.changed).map((w) => w.text.trim())).toEqual(["5 apples"]);
    expect(markDifferences("anything", null)).toEqual([{ text: "anything", changed: false }]);
  });

  it("names targets, plots those with results and says the time left", () => {
    expect(targetLabel({ model: "gpt", prompt: { name: "support/triage", label: "production" } })).toBe(
      "gpt @ support/triage:production",
    );
    expect(targetLabel({ model: "gpt", prompt: { name: "p", version: 3 } })).toBe("gpt @ p v3");
    expect(chartPoints([target(0, { passRate: 2 / 3 }), target(1, { passRate: null })])).toEqual([
      { index: 0, label: "m0", cost: 0.02, passRate: 66.7 },
    ]);
    expect(formatEta(12)).toBe("12 s");
    expect(formatEta(185)).toBe("3 min 5 s");
    expect(formatEta(3725)).toBe("1 h 2 min");
  });
});

describe("the scorer and target builders", () => {
  it("turn every scorer type's fields into the contract's scorer, blanks left out", () => {
    const d = (
      type: Parameters<typeof newDraft>[0],
      fields: Record<string, string>,
      caseSensitive = false,
    ) => ({
      ...newDraft(type),
      fields,
      caseSensitive,
    });
    expect(draftToScorer(d("contains", {}))).toEqual({ ok: true, scorer: { type: "contains" } });
    expect(draftToScorer(d("exact", { value: "Paris" }, true))).toEqual({
      ok: true,
      scorer: { type: "exact", value: "Paris", caseSensitive: true },
    });
    expect(draftToScorer(d("regex", { pattern: "^4$", flags: "i" }))).toEqual({
      ok: true,
      scorer: { type: "regex", pattern: "^4$", flags: "i" },
    });
    expect(draftToScorer(d("json_schema", { schema: '{"type":"object"}' }))).toEqual({
      ok: true,
      scorer: { type: "json_schema", schema: { type: "object" } },
    });
    expect(draftToScorer(d("tool_called", { name: "lookup", args: '{"id":1}' }))).toEqual({
      ok: true,
      scorer: { type: "tool_called", name: "lookup", args: { id: 1 } },
    });
    expect(draftToScorer(d("numeric", { value: "4", tolerance: "0.5" }))).toEqual({
      ok: true,
      scorer: { type: "numeric", value: 4, tolerance: 0.5 },
    });
    expect(draftToScorer(d("latency", { maxMs: "2000" }))).toEqual({
      ok: true,
      scorer: { type: "latency", maxMs: 2000 },
    });
    expect(draftToScorer(d("cost", { maxUsd: "0.01" }))).toEqual({
      ok: true,
      scorer: { type: "cost", maxUsd: "0.01" },
    });
    expect(draftToScorer(d("llm_judge", { rubric: "polite", model: "judge" }))).toEqual({
      ok: true,
      scorer: { type: "llm_judge", rubric: "polite", model: "judge", threshold: 0.5 },
    });
  });

  it("name the field of each scorer that is wrong", () => {
    const result = draftsToScorers([
      { ...newDraft("json_schema"), fields: { schema: "{oops" } },
      { ...newDraft("latency"), fields: { maxMs: "fast" } },
      { ...newDraft("cost"), fields: { maxUsd: "1 dollar" } },
      { ...newDraft("llm_judge"), fields: { model: "judge" } },
      newDraft("contains"),
    ]);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((e) => [e.index, e.field])).toEqual([
      [0, "schema"],
      [1, "maxMs"],
      [2, "maxUsd"],
      [3, "rubric"],
    ]);
    expect(result.errors[0]!.error).toBe("not valid JSON");
    expect(result.errors[1]!.error).toBe("not a number");
  });

  it("turn a target's alias and prompt into the contract's target", () => {
    const base = { model: "gpt", prompt: "", pick: "latest" as const, at: "" };
    expect(draftToTarget(base)).toEqual({ ok: true, target: { model: "gpt" } });
    expect(draftToTarget({ ...base, model: "" })).toEqual({ ok: false, error: "choose a model" });
    expect(draftToTarget({ ...base, prompt: " p " })).toEqual({
      ok: true,
      target: { model: "gpt", prompt: { name: "p" } },
    });
    expect(draftToTarget({ ...base, prompt: "p", pick: "version", at: "3" })).toEqual({
      ok: true,
      target: { model: "gpt", prompt: { name: "p", version: 3 } },
    });
    expect(draftToTarget({ ...base, prompt: "p", pick: "version", at: "1.5" }).ok).toBe(false);
    expect(draftToTarget({ ...base, prompt: "p", pick: "label", at: "production" })).toEqual({
      ok: true,
      target: { model: "gpt", prompt: { name: "p", label: "production" } },
    });
    expect(draftToTarget({ ...base, prompt: "p", pick: "label", at: " " }).ok).toBe(false);
  });

  it("sum scorers up in one line", () => {
    expect(scorerSummary({ type: "contains" })).toBe("contains (expected)");
    expect(scorerSummary({ type: "latency", maxMs: 2000 })).toBe("latency ≤ 2000 ms");
    expect(scorerSummary({ type: "llm_judge", model: "j", threshold: 0.7 })).toBe("llm_judge (j) ≥ 0.7");
  });
});
