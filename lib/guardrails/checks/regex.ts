/**
 * The `regex` check: a tenant's pattern, compiled on RE2 (linear time) once; every non-empty match is a hit. A
 * pattern RE2 cannot run throws UnsupportedPatternError when the check is compiled, never when it runs.
 */
import { compileLinear } from "@/lib/core/text/linear-regex";
import type { GuardrailHit, TextCheck } from "@/lib/guardrails/types";

export function regexCheck(pattern: string, flags = "", label = "regex"): TextCheck {
  const compiled = compileLinear(pattern, flags);
  return (text) => {
    const hits: GuardrailHit[] = [];
    // test() runs on RE2's DFA, several times faster than finding bounds: most texts that do not match stop here.
    if (!compiled.test(text)) return hits;
    const matcher = compiled.matcher(text);
    while (matcher.find()) {
      const start = matcher.start();
      const end = matcher.end();
      if (end > start) hits.push({ check: "regex", entity: label, start, end, confidence: 1 });
    }
    return hits;
  };
}
