import "server-only";
import type { RE2JS } from "re2js";
import type { GuardrailTestHit, GuardrailTestResult } from "@/features/guardrails/contracts";
import { compileLinear } from "@/lib/core/text/linear-regex";
import type {
  GuardrailAction,
  GuardrailOutcome,
  GuardrailPolicy,
  GuardrailRule,
  GuardrailStage,
} from "@/lib/guardrails/types";

/** What POST /api/governance/guardrails/test runs: a policy's rules of one stage over one text. */
export interface GuardrailTester {
  testText(policy: GuardrailPolicy, stage: GuardrailStage, text: string): Promise<GuardrailTestResult>;
}

const OUTCOME: Record<GuardrailAction, GuardrailOutcome> = {
  block: "blocked",
  redact: "redacted",
  warn: "warned",
  log: "logged",
};
const STRENGTH: GuardrailOutcome[] = ["passed", "logged", "warned", "redacted", "blocked"];

function matcherOf(rule: GuardrailRule): RE2JS | null {
  const { check } = rule;
  if (check.type === "regex") return compileLinear(check.pattern, check.flags);
  if (check.type === "deny_list")
    // One alternation of the quoted terms, any case: linear in the text whatever the number of terms.
    return compileLinear(check.terms.map((t) => t.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&")).join("|"), "i");
  return null;
}

function findAll(re: RE2JS, text: string): { start: number; end: number }[] {
  const spans: { start: number; end: number }[] = [];
  const m = re.matcher(text);
  while (m.find()) if (m.end() > m.start()) spans.push({ start: m.start(), end: m.end() });
  return spans;
}

/** Replaces each redacted span (overlaps merged) by `[entity]`. */
function redact(text: string, hits: GuardrailTestHit[]): string {
  const spans = hits.filter((h) => h.action === "redact").sort((a, b) => a.start - b.start || b.end - a.end);
  let out = "";
  let at = 0;
  for (const hit of spans) {
    if (hit.end <= at) continue;
    out += `${text.slice(at, Math.max(at, hit.start))}[${hit.entity}]`;
    at = hit.end;
  }
  return out + text.slice(at);
}

/**
 * TEMPORARY, until the guardrails engine (lib/guardrails/engine.ts) replaces it at merge: runs only the enabled
 * `regex` and `deny_list` rules of the stage (on RE2), ignores every other check and each rule's scope.
 */
export const patternOnlyTester: GuardrailTester = {
  async testText(policy, stage, text) {
    const hits: GuardrailTestHit[] = [];
    for (const rule of policy.rules) {
      if (rule.enabled === false || rule.stage !== stage) continue;
      const re = matcherOf(rule);
      if (!re) continue;
      const entity =
        (rule.check.type === "regex" || rule.check.type === "deny_list" ? rule.check.label : undefined) ??
        rule.check.type;
      for (const span of findAll(re, text))
        hits.push({
          ruleId: rule.id,
          ruleName: rule.name,
          entity,
          ...span,
          confidence: 1,
          action: rule.action,
        });
    }
    const outcome = hits.reduce<GuardrailOutcome>((strongest, hit) => {
      const o = OUTCOME[hit.action];
      return STRENGTH.indexOf(o) > STRENGTH.indexOf(strongest) ? o : strongest;
    }, "passed");
    return { hits, outcome, text: redact(text, hits) };
  },
};
