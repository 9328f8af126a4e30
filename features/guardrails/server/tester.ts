import "server-only";
import type { GuardrailTestHit, GuardrailTestResult } from "@/features/guardrails/contracts";
import type { GuardrailEngine } from "@/lib/guardrails/engine";
import type { GuardrailPolicy, GuardrailStage, TextOrigin } from "@/lib/guardrails/types";

/** What POST /api/governance/guardrails/test runs: a policy's rules of one stage over one text. */
export interface GuardrailTester {
  testText(policy: GuardrailPolicy, stage: GuardrailStage, text: string): Promise<GuardrailTestResult>;
}

/** The origin a tested text is read as: what a user typed, a tool's arguments, or an answer. */
const ORIGIN: Record<GuardrailStage, TextOrigin> = {
  input: "user",
  tool_input: "tool_input",
  output: "output",
};

/**
 * The engine the calls go through, over every enabled rule of the stage whatever its scope (the page asks "what
 * would my rules do with this text"). Model and webhook checks run too, as they would on a call.
 */
export function engineTester(engine: GuardrailEngine): GuardrailTester {
  return {
    async testText(policy, stage, text) {
      const rules = policy.rules.filter((rule) => rule.enabled !== false && rule.stage === stage);
      const result = await engine.evaluate(stage, [{ text, origin: ORIGIN[stage] }], rules);
      const hits: GuardrailTestHit[] = result.rules.flatMap((outcome, index) =>
        outcome.hits.map((hit) => ({
          ruleId: outcome.ruleId,
          ruleName: outcome.ruleName,
          entity: hit.entity,
          start: hit.start,
          end: hit.end,
          confidence: hit.confidence,
          action: outcome.action ?? rules[index]!.action,
        })),
      );
      return { hits, outcome: result.outcome, text: result.texts[0] ?? text };
    },
  };
}
