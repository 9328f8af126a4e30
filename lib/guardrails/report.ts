/**
 * What the caller and the audit are told about a stage: the `x-tollgate-guardrail` header and the guardrail
 * events. Neither carries matched text — only rule ids, entity names and counts.
 *
 * The header is a comma-separated list, one entry per rule that acted, in the policy's order, each an outcome token
 * with parameters (the shape of an RFC 8941 list):
 *   x-tollgate-guardrail: redacted;rule="r1";entities="email payment_card", warned;rule="r2";entities="injection",
 *                         check_failed;rule="r3";on_error=open
 * Outcome tokens: blocked, redacted, warned, check_failed. `log` rules are recorded but not announced.
 */
import type { GuardrailEvent, RuleResult } from "./stage-result";
import type { GuardrailStage } from "./types";

export const GUARDRAIL_HEADER = "x-tollgate-guardrail";

const STAGE_TEXT: Record<GuardrailStage, string> = {
  input: "the request",
  tool_input: "a tool's arguments",
  output: "the answer",
};

const PAST_TENSE = { block: "blocked", redact: "redacted", warn: "warned", log: "logged" } as const;

export function stageReport(
  stage: GuardrailStage,
  results: readonly RuleResult[],
): { headers: Record<string, string>; events: GuardrailEvent[] } {
  const entries: string[] = [];
  const events: GuardrailEvent[] = [];
  for (const result of results) {
    const rule = `rule=${quoted(result.ruleId)}`;
    if (result.error) {
      const { onError } = result.error;
      entries.push(`check_failed;${rule};on_error=${onError}`);
      events.push({
        type: "guardrail",
        code: "guardrail_check_failed",
        message:
          onError === "closed"
            ? `Guardrail "${result.ruleName}" blocked ${STAGE_TEXT[stage]}: its check could not run (${result.error.message}).`
            : `Guardrail "${result.ruleName}" could not run its check on ${STAGE_TEXT[stage]} (${result.error.message}); it let the call through as its on-error setting says.`,
        blocking: onError === "closed",
        ruleId: result.ruleId,
      });
      continue;
    }
    if (!result.action) continue;
    const entities = [...new Set(result.hits.map((hit) => hit.entity))];
    const done = PAST_TENSE[result.action];
    if (result.action !== "log") entries.push(`${done};${rule};entities=${quoted(entities.join(" "))}`);
    const found = result.hits.length === 1 ? "1 finding" : `${result.hits.length} findings`;
    events.push({
      type: "guardrail",
      code: `guardrail_${done}`,
      message: `Guardrail "${result.ruleName}" ${done} ${STAGE_TEXT[stage]}: ${found}${entities.length ? ` (${entities.join(", ")})` : ""}.`,
      blocking: result.action === "block",
      ruleId: result.ruleId,
    });
  }
  return { headers: entries.length ? { [GUARDRAIL_HEADER]: entries.join(", ") } : {}, events };
}

// A structured-field string: printable ASCII with `"` and `\` escaped; anything else becomes `?`.
function quoted(value: string): string {
  return `"${value.replace(/[^\x20-\x7e]/g, "?").replace(/["\\]/g, (character) => `\\${character}`)}"`;
}
