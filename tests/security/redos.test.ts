import { beforeAll, describe, expect, it } from "vitest";
import { type ScoreContext, scoreOne, scorerProblems } from "@/features/evals/server/scorers";
import type { Scorer } from "@/features/evals/server/types";
import { findSecrets, MAX_MASKED_LENGTH, maskSecrets, maskText, patternsFromEnv } from "@/lib/core/text/mask";
import { auditRow } from "@/lib/governance/recorder";
import { probeWhile, yieldToLoop } from "./event-loop-probe";
import { ISSUE_PRIVATE_KEY_INPUT, worstMaskInputs } from "./redos-inputs";

// A ReDoS blocks for seconds on every try; a shared CI core can delay one probe once. Timing tests retry twice.
const TIMED = { retry: 2 };

/** What "the server keeps answering" means here: every liveness probe answered, each within 100 ms. */
function expectAnswering(probes: { ms: number; status: number }[]) {
  expect(probes.length).toBeGreaterThan(0);
  expect(probes.filter((p) => p.status !== 200)).toEqual([]);
  const slow = probes.filter((p) => p.ms >= 100).map((p) => Math.round(p.ms));
  expect(slow, "probes that took 100 ms or more").toEqual([]);
}

const turn = { tenantId: "t", userId: "u", turnId: "turn", conversationId: null } as Parameters<
  typeof auditRow
>[0];

describe("ReDoS: masking never stalls the event loop", () => {
  // A serving process has compiled every rule long before; the first call's compilation is not what is measured.
  beforeAll(() => {
    for (const list of Object.values(worstMaskInputs(2_000))) for (const input of list) maskText(input);
  });

  it(
    "the issue's 160 KB private-key string, as a tool argument through the recorder, is masked while health answers",
    TIMED,
    async () => {
      expect(ISSUE_PRIVATE_KEY_INPUT.length).toBeGreaterThan(160_000);
      let row: ReturnType<typeof auditRow> | undefined;
      const probes = await probeWhile(async () => {
        row = auditRow(turn, 2, {
          type: "tool_call",
          payload: { name: "crm__lookup", args: { name: ISSUE_PRIVATE_KEY_INPUT } },
        } as Parameters<typeof auditRow>[2]);
      });
      expectAnswering(probes);
      // Cut to the documented length, and the cut says so.
      const masked = (row!.payload as { args: { name: string } }).args.name;
      expect(masked.length).toBeLessThan(MAX_MASKED_LENGTH + 100);
      expect(masked).toMatch(/…\[cut: \d+ more characters\]$/);
    },
  );

  const inputs = worstMaskInputs(200_000);
  it.each(Object.keys(inputs))(
    "rule %s: its worst inputs and near misses are masked, and found as spans, while health answers",
    TIMED,
    async (rule) => {
      const probes = await probeWhile(async () => {
        for (const input of inputs[rule]!) {
          maskText(input);
          await yieldToLoop();
          // The guardrails' secrets check runs the same rules on the whole text, not cut to MAX_MASKED_LENGTH.
          findSecrets(input);
          await yieldToLoop();
          maskSecrets({ args: { [input.slice(0, 5_000)]: input, list: [input] } });
          await yieldToLoop();
        }
      });
      expectAnswering(probes);
    },
  );

  it(
    "an operator's MASK_PATTERNS run on RE2: a nested quantifier on a near miss is masked while health answers",
    TIMED,
    async () => {
      // On V8's backtracking engine "(a+)+$" against 40 a's and a "!" takes 2^40 steps.
      const patterns = patternsFromEnv({ MASK_PATTERNS: '["(a+)+$", "EMP-\\\\d{6}"]' });
      const nearMiss = `${"a".repeat(40)}!`;
      let out = "";
      const probes = await probeWhile(async () => {
        out = maskText(`${nearMiss} EMP-123456 ${"a".repeat(20_000)}`, { extraPatterns: patterns });
      });
      expectAnswering(probes);
      expect(out).toBe(`${nearMiss} [masked:custom] [masked:custom]`);
    },
  );

  it("a string over the limit is cut with a marker, never silently, and no token is left half-cut at the end", () => {
    const key = `tg_${"A1b2".repeat(8)}`;
    const text = `${"x ".repeat((MAX_MASKED_LENGTH - 10) / 2)}${key} tail`;
    const masked = maskText(text);
    expect(masked).not.toContain(key.slice(0, 8));
    expect(masked).toMatch(/ …\[cut: \d+ more characters\]$/);
    expect(maskText("short")).toBe("short");
  });
});

describe("ReDoS: tenants' patterns run in linear time", () => {
  const ctx = (output: string): ScoreContext => ({
    input: { messages: [{ role: "user", content: "q" }] },
    expected: null,
    output,
    toolCalls: [],
    latencyMs: 1,
    cost: "0",
  });
  // (a+)+$ on "aaaa…!" takes about 1 s at 25 characters on a backtracking engine and doubles with each one.
  const catastrophic = `${"a".repeat(25)}!`;
  // A long answer each pattern matches (re2js needs about 1 µs a character to find a match's bounds).
  const long = "a".repeat(20_000);

  const cases: [string, Scorer, string[]][] = [
    ["regex", { type: "regex", pattern: "(a+)+$" }, [catastrophic, long]],
    ["regex with flags", { type: "regex", pattern: "^(a|aa)+$", flags: "im" }, [catastrophic, long]],
    [
      "json_schema pattern",
      { type: "json_schema", schema: { type: "string", pattern: "^(a+)+$" } },
      [JSON.stringify(catastrophic), JSON.stringify(long)],
    ],
    [
      "json_schema patternProperties",
      {
        type: "json_schema",
        schema: {
          type: "object",
          patternProperties: { "^(a|a)*$": { type: "number" } },
          additionalProperties: false,
        },
      },
      [JSON.stringify({ [catastrophic]: 1 }), JSON.stringify({ [long]: 1 })],
    ],
  ];

  it(
    "json and json_schema: an answer with an unclosed ``` fence and a long run of spaces scores while health answers",
    TIMED,
    async () => {
      // The fence lookup was a lazy regex after \s*: every split of the spaces, quadratic in the answer.
      const answer = `\`\`\`json${" ".repeat(200_000)}x`;
      const scorers = [
        { type: "json_schema", schema: { type: "object" } },
        { type: "json_schema", schema: { type: "string" } },
      ] as Exclude<Scorer, { type: "llm_judge" }>[];
      const passed: boolean[] = [];
      const probes = await probeWhile(async () => {
        for (const scorer of scorers) {
          passed.push(scoreOne(scorer, ctx(answer)).passed);
          await yieldToLoop();
        }
      });
      expectAnswering(probes);
      expect(passed).toEqual([false, false]);
      expect(scoreOne(scorers[0]!, ctx('Here: ```json\n{"a": 1}\n```')).passed).toBe(true);
    },
  );

  it.each(cases)(
    "%s: a catastrophic pattern on its worst answer scores while health answers",
    TIMED,
    async (_name, scorer, outputs) => {
      expect(scorerProblems([scorer])).toEqual({});
      scoreOne(scorer as Exclude<Scorer, { type: "llm_judge" }>, ctx(outputs[1]!.slice(0, 100)));
      const results: boolean[] = [];
      const probes = await probeWhile(async () => {
        for (const output of outputs) {
          results.push(scoreOne(scorer as Exclude<Scorer, { type: "llm_judge" }>, ctx(output)).passed);
          await yieldToLoop();
        }
      });
      expectAnswering(probes);
      // "…!" matches none of the patterns, the long run of "a" matches each: the results are right, only fast.
      expect(results).toEqual([false, true]);
    },
  );

  it("a pattern RE2 cannot run (backreference, lookaround) is refused before the run, naming the scorer and why", () => {
    const problems = scorerProblems([
      { type: "regex", pattern: "(a)\\1" },
      { type: "regex", pattern: "a(?=b)" },
      { type: "json_schema", schema: { type: "string", pattern: "(?<!x)y" } },
      { type: "json_schema", schema: { type: "object", patternProperties: { "(\\w)\\1": {} } } },
      { type: "regex", pattern: "capital of \\w+", flags: "i" },
    ]);
    expect(Object.keys(problems)).toEqual(["scorers.0", "scorers.1", "scorers.2", "scorers.3"]);
    expect(problems["scorers.0"]![0]).toMatch(/^regex scorer: invalid regular expression: .*\\1.*RE2/);
    expect(problems["scorers.1"]![0]).toMatch(/^regex scorer: .*\(\?=.*lookaround/);
    expect(problems["scorers.2"]![0]).toMatch(/^json_schema scorer: invalid JSON Schema: .*RE2/);
    expect(problems["scorers.3"]![0]).toMatch(/^json_schema scorer: .*backreferences/);
  });
});
