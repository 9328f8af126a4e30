import type { EngineDependencies } from "@/lib/guardrails/engine";
import type { GuardrailCheck, GuardrailHit, GuardrailRule, TextCheck } from "@/lib/guardrails/types";

const EMAIL_CHARACTER = /[A-Za-z0-9._-]/;

/** Emails by scanning out from each `@`: enough of a detector to exercise the engine. */
export function findEmails(text: string): GuardrailHit[] {
  const hits: GuardrailHit[] = [];
  let at = text.indexOf("@");
  while (at !== -1) {
    let start = at;
    while (start > 0 && EMAIL_CHARACTER.test(text[start - 1]!)) start--;
    let end = at + 1;
    while (end < text.length && EMAIL_CHARACTER.test(text[end]!)) end++;
    while (end > at + 1 && text[end - 1] === ".") end--;
    if (start < at && text.slice(at + 1, end).includes("."))
      hits.push({ check: "pii", entity: "email", start, end, confidence: 0.9 });
    at = text.indexOf("@", end);
  }
  return hits;
}

function findPattern(
  text: string,
  pattern: RegExp,
  hit: Omit<GuardrailHit, "start" | "end">,
): GuardrailHit[] {
  return [...text.matchAll(pattern)].map((match) => ({
    ...hit,
    start: match.index,
    end: match.index + match[0].length,
  }));
}

/** A stand-in for lib/guardrails/checks' compileCheck. */
export function fakeCompile(check: GuardrailCheck): TextCheck {
  switch (check.type) {
    case "pii":
      return (text) => [
        ...findEmails(text),
        ...findPattern(text, /\b\d{4}(?: ?\d{4}){3}\b/g, {
          check: "pii",
          entity: "payment_card",
          confidence: 1,
        }),
      ];
    case "secrets":
      return (text) =>
        findPattern(text, /AKIA[A-Z0-9]{16}/g, { check: "secrets", entity: "aws_access_key", confidence: 1 });
    case "regex": {
      const pattern = new RegExp(check.pattern, `${check.flags ?? ""}g`);
      return (text) =>
        findPattern(text, pattern, { check: "regex", entity: check.label ?? "regex", confidence: 1 });
    }
    case "deny_list":
      return (text) =>
        check.terms.flatMap((term) => {
          const at = text.indexOf(term);
          return at === -1
            ? []
            : [
                {
                  check: "deny_list",
                  entity: check.label ?? "deny_list",
                  start: at,
                  end: at + term.length,
                  confidence: 1,
                },
              ];
        });
    default:
      throw new Error(`the fake compiles no ${check.type} check`);
  }
}

export function fakeDependencies(overrides: Partial<EngineDependencies> = {}): EngineDependencies {
  return {
    compile: fakeCompile,
    jsonSchema: (text) => {
      try {
        JSON.parse(text);
        return [];
      } catch {
        return [{ check: "json_schema", entity: "invalid_json", start: 0, end: text.length, confidence: 1 }];
      }
    },
    model: async () => ({ hits: [] }),
    webhook: async () => ({ hits: [] }),
    now: () => 0,
    ...overrides,
  };
}

export function rule(
  overrides: Partial<GuardrailRule> & Pick<GuardrailRule, "id" | "check" | "action">,
): GuardrailRule {
  return { name: overrides.id, stage: "input", onError: "closed", ...overrides };
}
