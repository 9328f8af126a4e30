import { describe, expect, it } from "vitest";
import { compileCheck } from "@/lib/guardrails/checks";
import type { TextCheck } from "@/lib/guardrails/types";
import { worstGuardrailInputs } from "./guardrail-inputs";

// A shared CI core can slow one measurement; a linear scan passes on a retry, a quadratic one never does.
const TIMED = { retry: 2 };

// A term of twenty words that the worst inputs almost match from every position.
const denyTerms = [`${"a ".repeat(20)}z`, "a b a b c", "é é x"];
const injection = compileCheck({ type: "injection" });
const checks: Record<string, TextCheck> = {
  pii: compileCheck({ type: "pii" }),
  // The indirect path: the most signals are looked for there.
  injection: (text) => injection(text, "tool_result"),
  deny_list: compileCheck({ type: "deny_list", terms: denyTerms }),
};

const CALLS_PER_ROUND = 3;

/**
 * The fastest of five rounds of three calls. Each call gets its own copy of the text (one more character): the words
 * of the last text are cached, and a repeated text would skip the tokenising this test means to time.
 */
function fastestMs(check: TextCheck, text: string): number {
  let fastest = Number.POSITIVE_INFINITY;
  for (let round = 0; round < 5; round++) {
    const copies = Array.from({ length: CALLS_PER_ROUND }, (_, call) => `${text}${round}${call}`);
    const started = performance.now();
    for (const copy of copies) check(copy, "user");
    fastest = Math.min(fastest, performance.now() - started);
  }
  return fastest;
}

describe("ReDoS: the guardrail checks stay linear on their worst inputs", () => {
  // Large enough that one call takes milliseconds: at 50 KB a round was about a millisecond, and on a loaded CI core
  // one collection pause in it read as a ratio of 5 for a scan that doubles (measured 2.0× from 200 to 400 KB).
  const half = worstGuardrailInputs(150_000);
  const full = worstGuardrailInputs(300_000);
  for (const name of Object.keys(full)) {
    it.each(full[name]!.map((input, index) => [input.slice(0, 12), index] as const))(
      `${name}: twice the input (%j…) costs about twice the time`,
      TIMED,
      (_head, index) => {
        const check = checks[name]!;
        // Both sizes once first, so the JIT's warm-up is in neither measurement.
        check(half[name]![index]!, "user");
        check(full[name]![index]!, "user");
        const ratio =
          fastestMs(check, full[name]![index]!) / Math.max(fastestMs(check, half[name]![index]!), 0.5);
        // Linear doubles (2); quadratic quadruples (4). Timer resolution and noise sit between.
        expect(ratio).toBeLessThan(3);
      },
    );
  }
});
