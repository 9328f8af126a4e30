import "server-only";
import { Ajv2020 } from "ajv/dist/2020.js";
import Big from "big.js";
import type { EvalInput } from "@/db/schema";
import { compileLinear, firstMatch, linearRegExpEngine } from "@/lib/core/text/linear-regex";
import { BUDGET_CLASSES, type EvalCallResult } from "./call";
import type { ScoreResult, Scorer } from "./types";

/** What a scorer sees of one answer. */
export type ScoreContext = {
  input: EvalInput;
  expected: unknown;
  output: string;
  toolCalls: { name: string; args: Record<string, unknown> }[];
  latencyMs: number;
  /** Exact USD of the target's call; null when unpriced. */
  cost: string | null;
};

/** Asks a judge alias (a metered call, source eval); the runner gives it, a test gives a fake. */
export type Judge = (
  model: string,
  messages: { role: "system" | "user"; content: string }[],
) => Promise<Pick<EvalCallResult, "answer" | "cost" | "error">>;

/** The scorer a run uses when neither it nor its dataset names any. */
export const DEFAULT_SCORERS: Scorer[] = [{ type: "contains" }];

// Tenants write these schemas: their `pattern`s run on RE2 (linear time), like the regex scorer's.
const ajv = new Ajv2020({ allErrors: true, strict: false, code: { regExp: linearRegExpEngine } });
const MAX_REASON = 2_000;

const result = (type: string, passed: boolean, reason: string, score = passed ? 1 : 0): ScoreResult => ({
  type,
  passed,
  score: Math.max(0, Math.min(1, score)),
  reason: reason.length > MAX_REASON ? `${reason.slice(0, MAX_REASON)}…` : reason,
});

/** The expected output as text: a string as it is, any other JSON value as JSON; null when there is none. */
export function expectedText(expected: unknown): string | null {
  if (expected === undefined || expected === null) return null;
  return typeof expected === "string" ? expected : JSON.stringify(expected);
}

const quote = (text: string, max = 80) => JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);

/**
 * Problems with scorers that no answer could fix (a regular expression RE2 cannot compile, a JSON Schema ajv cannot
 * compile or whose patterns RE2 cannot), by index, so a run is refused with a 422 naming them instead of failing
 * every item.
 */
export function scorerProblems(scorers: Scorer[]): Record<string, string[]> {
  const problems: Record<string, string[]> = {};
  scorers.forEach((s, i) => {
    try {
      if (s.type === "regex") compileLinear(s.pattern, s.flags);
      if (s.type === "json_schema") ajv.compile(s.schema);
    } catch (error) {
      problems[`scorers.${i}`] = [
        `${s.type} scorer: ${s.type === "regex" ? "invalid regular expression" : "invalid JSON Schema"}: ${error instanceof Error ? error.message : String(error)}`,
      ];
    }
  });
  return problems;
}

/** `want` is contained in `have`: every key of an object (recursively), every element of an array, or equal. */
export function subsetMatch(want: unknown, have: unknown): boolean {
  if (want === null || typeof want !== "object") {
    if (typeof want === "number" && typeof have === "string") return Number(have) === want;
    if (typeof want === "string" && typeof have === "number") return String(have) === want;
    return Object.is(want, have) || want === have;
  }
  if (Array.isArray(want)) {
    if (!Array.isArray(have)) return false;
    return want.every((w) => have.some((h) => subsetMatch(w, h)));
  }
  if (have === null || typeof have !== "object" || Array.isArray(have)) return false;
  return Object.entries(want).every(([k, v]) => subsetMatch(v, (have as Record<string, unknown>)[k]));
}

/**
 * The inside of the first ``` fence (after an optional "json" tag), or undefined. Found with indexOf: the regex
 * it replaces (```(?:json)?\s*([\s\S]*?)```) tried every split of a long run of spaces, quadratic in the answer.
 */
export function fencedBlock(text: string): string | undefined {
  const open = text.indexOf("```");
  if (open < 0) return undefined;
  let start = open + 3;
  if (text.slice(start, start + 4).toLowerCase() === "json") start += 4;
  const close = text.indexOf("```", start);
  if (close < 0) return undefined;
  return text.slice(start, close).trimStart();
}

/** The JSON in an answer: the whole text, or the inside of a ```json fence. */
function parseJsonAnswer(text: string): { ok: true; value: unknown } | { ok: false } {
  const fenced = fencedBlock(text);
  for (const candidate of [text.trim(), fenced?.trim()]) {
    if (!candidate) continue;
    try {
      return { ok: true, value: JSON.parse(candidate) };
    } catch {}
  }
  return { ok: false };
}

const NUMBER = /-?\d+(?:[.,]\d+)?(?:e[+-]?\d+)?/i;

/** Applies one scorer that needs no model. */
export function scoreOne(scorer: Exclude<Scorer, { type: "llm_judge" }>, ctx: ScoreContext): ScoreResult {
  switch (scorer.type) {
    case "exact":
    case "contains": {
      const want = scorer.value ?? expectedText(ctx.expected);
      if (want === null) return result(scorer.type, false, "no expected output to compare with");
      const exact = scorer.type === "exact";
      const sensitive = scorer.caseSensitive ?? exact;
      const norm = (s: string) => (sensitive ? s : s.toLowerCase());
      const have = norm(exact ? ctx.output.trim() : ctx.output);
      const target = norm(exact ? want.trim() : want);
      const passed = exact ? have === target : have.includes(target);
      return result(
        scorer.type,
        passed,
        passed
          ? `the answer ${exact ? "equals" : "contains"} ${quote(want)}`
          : `the answer does not ${exact ? "equal" : "contain"} ${quote(want)}`,
      );
    }
    case "regex": {
      let re: ReturnType<typeof compileLinear>;
      try {
        re = compileLinear(scorer.pattern, scorer.flags);
      } catch (error) {
        return result("regex", false, `invalid regular expression: ${(error as Error).message}`);
      }
      const match = firstMatch(re, ctx.output);
      return result(
        "regex",
        match !== null,
        match !== null ? `matched ${quote(match)}` : `no match for /${scorer.pattern}/${scorer.flags ?? ""}`,
      );
    }
    case "json_schema": {
      const parsed = parseJsonAnswer(ctx.output);
      if (!parsed.ok) return result("json_schema", false, "the answer is not JSON");
      let validate: ReturnType<typeof ajv.compile>;
      try {
        validate = ajv.compile(scorer.schema);
      } catch (error) {
        return result("json_schema", false, `invalid JSON Schema: ${(error as Error).message}`);
      }
      if (validate(parsed.value)) return result("json_schema", true, "valid against the schema");
      const errors = (validate.errors ?? [])
        .slice(0, 3)
        .map((e) => `${e.instancePath || "(root)"} ${e.message ?? "is invalid"}`);
      return result("json_schema", false, `not valid: ${errors.join("; ")}`);
    }
    case "tool_called": {
      const named = ctx.toolCalls.filter((c) => c.name === scorer.name);
      if (!named.length)
        return result(
          "tool_called",
          false,
          ctx.toolCalls.length
            ? `${scorer.name} was not called (called: ${ctx.toolCalls.map((c) => c.name).join(", ")})`
            : `${scorer.name} was not called (no tool was called)`,
        );
      if (!scorer.args) return result("tool_called", true, `${scorer.name} was called`);
      const match = named.find((c) => subsetMatch(scorer.args, c.args));
      return match
        ? result("tool_called", true, `${scorer.name} was called with matching arguments`)
        : result(
            "tool_called",
            false,
            `${scorer.name} was called, but not with ${JSON.stringify(scorer.args)} (got ${JSON.stringify(named[0]!.args)})`,
            0.5,
          );
    }
    case "numeric": {
      const want =
        scorer.value ??
        (typeof ctx.expected === "number"
          ? ctx.expected
          : typeof ctx.expected === "string" && NUMBER.test(ctx.expected)
            ? Number(ctx.expected.match(NUMBER)![0].replace(",", "."))
            : null);
      if (want === null || Number.isNaN(want))
        return result("numeric", false, "no expected number to compare with");
      const found = ctx.output.match(NUMBER);
      if (!found) return result("numeric", false, "the answer has no number");
      const got = Number(found[0].replace(",", "."));
      const tolerance = scorer.tolerance ?? 0;
      const diff = Math.abs(got - want);
      const passed = diff <= tolerance;
      return result(
        "numeric",
        passed,
        `${got} is ${diff} from ${want} (tolerance ${tolerance})`,
        passed ? 1 : Math.max(0, 1 - diff / Math.max(Math.abs(want), 1)),
      );
    }
    case "latency": {
      const passed = ctx.latencyMs <= scorer.maxMs;
      return result("latency", passed, `${ctx.latencyMs} ms ${passed ? "≤" : ">"} ${scorer.maxMs} ms`);
    }
    case "cost": {
      if (ctx.cost === null) return result("cost", false, "the call has no price (unpriced model)");
      const passed = new Big(ctx.cost).lte(new Big(scorer.maxUsd));
      return result("cost", passed, `$${ctx.cost} ${passed ? "≤" : ">"} $${scorer.maxUsd}`);
    }
  }
}

/** The judge's prompt: the rubric, the case, the answer, and the JSON it must reply with. */
export function judgeMessages(
  rubric: string,
  ctx: Pick<ScoreContext, "input" | "expected" | "output">,
): { role: "system" | "user"; content: string }[] {
  const input =
    "messages" in ctx.input
      ? ctx.input.messages.map((m) => `${m.role}: ${m.content}`).join("\n")
      : JSON.stringify(ctx.input.variables);
  const expected = expectedText(ctx.expected);
  return [
    {
      role: "system",
      content:
        "You are a strict, impartial grader. Score the ANSWER against the RUBRIC from 0 (fails it) to 1 (fully " +
        'meets it). Reply with JSON only, no prose around it: {"score": <number from 0 to 1>, "reasoning": ' +
        '"<one or two sentences>"}',
    },
    {
      role: "user",
      content: [
        `RUBRIC:\n${rubric}`,
        `INPUT:\n${input}`,
        ...(expected !== null ? [`EXPECTED (reference answer):\n${expected}`] : []),
        `ANSWER:\n${ctx.output}`,
      ].join("\n\n"),
    },
  ];
}

/**
 * Reads a judge's verdict: a JSON object with `score` (a number, or a numeric string; a percentage over 1 is read
 * as out of 100) and `reasoning`, possibly fenced or surrounded by prose; failing that, "score: 0.8" in the text.
 */
export function parseVerdict(text: string): { score: number; reasoning: string } | null {
  const candidates: string[] = [];
  const fenced = fencedBlock(text);
  if (fenced) candidates.push(fenced);
  candidates.push(text);
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start >= 0 && end > start) candidates.push(text.slice(start, end + 1));
  for (const candidate of candidates) {
    try {
      const value = JSON.parse(candidate.trim()) as Record<string, unknown>;
      if (value && typeof value === "object") {
        const score = toScore(value.score);
        if (score !== null)
          return {
            score,
            reasoning: String(value.reasoning ?? value.reason ?? value.explanation ?? "").trim(),
          };
      }
    } catch {}
  }
  const loose = text.match(/"?score"?\s*[:=]\s*"?(-?\d+(?:\.\d+)?)/i);
  const score = loose ? toScore(loose[1]) : null;
  if (score === null) return null;
  const reasoning = text.match(/"?reasoning"?\s*[:=]\s*"?([^"\n}]*)/i)?.[1]?.trim() ?? "";
  return { score, reasoning };
}

function toScore(raw: unknown): number | null {
  const n = typeof raw === "number" ? raw : typeof raw === "string" && raw.trim() ? Number(raw) : Number.NaN;
  if (!Number.isFinite(n) || n < 0) return null;
  if (n <= 1) return n;
  return n <= 100 ? n / 100 : null;
}

/** Scores one answer with every scorer; the judge's cost is added up (exact) beside. */
export async function scoreAll(
  scorers: Scorer[],
  ctx: ScoreContext,
  judge: Judge,
): Promise<{
  scores: ScoreResult[];
  passed: boolean;
  score: number;
  judgeCost: string;
  /** A judge call was refused by the hard budget (the run stops). */
  budget?: { class: string; message: string };
}> {
  const scores: ScoreResult[] = [];
  let judgeCost = new Big(0);
  let budget: { class: string; message: string } | undefined;
  for (const scorer of scorers) {
    if (scorer.type !== "llm_judge") {
      scores.push(scoreOne(scorer, ctx));
      continue;
    }
    const threshold = scorer.threshold ?? 0.5;
    const verdict = await judge(scorer.model, judgeMessages(scorer.rubric, ctx));
    if (verdict.cost) judgeCost = judgeCost.plus(verdict.cost);
    if (verdict.error) {
      if (BUDGET_CLASSES.has(verdict.error.class)) budget ??= verdict.error;
      scores.push(result("llm_judge", false, `the judge failed: ${verdict.error.message}`));
      continue;
    }
    const parsed = parseVerdict(verdict.answer);
    if (!parsed) {
      scores.push(
        result("llm_judge", false, `the judge's answer had no score: ${quote(verdict.answer, 200)}`),
      );
      continue;
    }
    scores.push(
      result(
        "llm_judge",
        parsed.score >= threshold,
        `${parsed.score} (threshold ${threshold})${parsed.reasoning ? `: ${parsed.reasoning}` : ""}`,
        parsed.score,
      ),
    );
  }
  const passed = scores.every((s) => s.passed);
  const score = scores.length ? scores.reduce((n, s) => n + s.score, 0) / scores.length : passed ? 1 : 0;
  return { scores, passed, score, judgeCost: judgeCost.toFixed(), ...(budget ? { budget } : {}) };
}
