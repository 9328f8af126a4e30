import type {
  GuardrailPolicy,
  GuardrailRule,
  GuardrailScope,
  GuardrailSource,
  GuardrailStage,
} from "./types";

/** What a rule's scope is matched against: the alias asked for, the API key, the user, where the call came from. */
export type GuardrailCall = { alias?: string; keyId?: string; userId?: string; source: GuardrailSource };

/** The policy's enabled rules of `stage` whose scope covers `call`, in the policy's order. */
export function rulesFor(
  policy: GuardrailPolicy,
  stage: GuardrailStage,
  call: GuardrailCall,
): GuardrailRule[] {
  return policy.rules.filter(
    (rule) => rule.stage === stage && rule.enabled !== false && scopeCovers(rule.scope, call),
  );
}

function scopeCovers(scope: GuardrailScope | undefined, call: GuardrailCall): boolean {
  if (!scope) return true;
  return (
    listAllows(scope.aliases, call.alias) &&
    listAllows(scope.keys, call.keyId) &&
    listAllows(scope.users, call.userId) &&
    listAllows(scope.sources, call.source)
  );
}

// An absent list means every call; a present one needs the call to name one of its values (an unknown value does not).
function listAllows<T>(list: readonly T[] | undefined, value: T | undefined): boolean {
  return list === undefined || (value !== undefined && list.includes(value));
}
