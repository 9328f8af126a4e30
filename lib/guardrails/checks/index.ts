/**
 * The deterministic guardrail checks, by type: `compileCheck` turns a rule's check into a TextCheck once (patterns
 * compiled, term tries built) so the caller can cache it and run it on every call. Framework- and database-free.
 */
import type { GuardrailCheck, TextCheck } from "@/lib/guardrails/types";
import { denyListCheck } from "./deny-list";
import { injectionCheck } from "./injection";
import { piiCheck } from "./pii";
import { regexCheck } from "./regex";
import { secretsCheck } from "./secrets";

export { checkJsonSchema, describeJsonSchemaMismatch } from "./json-schema";

/** A check that is not a TextCheck: a model or a webhook is asynchronous, a JSON Schema needs the whole answer. */
export class NotATextCheckError extends Error {
  constructor(readonly type: GuardrailCheck["type"]) {
    super(`a ${type} check is not a synchronous text check`);
  }
}

/** Compiles `check`; a regex RE2 cannot run throws UnsupportedPatternError, a model/webhook/json_schema check throws. */
export function compileCheck(check: GuardrailCheck): TextCheck {
  switch (check.type) {
    case "pii":
      return piiCheck(check.entities);
    case "secrets":
      return secretsCheck;
    case "regex":
      return regexCheck(check.pattern, check.flags, check.label);
    case "deny_list":
      return denyListCheck(check.terms, check.label);
    case "injection":
      return injectionCheck;
    case "json_schema":
    case "model":
    case "webhook":
      throw new NotATextCheckError(check.type);
  }
}
