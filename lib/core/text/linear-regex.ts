/**
 * Regular expressions written by tenants (eval scorers, JSON Schema patterns) run on RE2 (re2js, pure JS): its
 * matching time is linear in the input, so no pattern can stall the shared event loop the way "(a+)+$" does on
 * V8's backtracking engine. RE2 has no backreferences or lookaround; such a pattern is refused when it is given.
 */
import { RE2JS } from "re2js";

/** Why RE2 refuses most JavaScript-only patterns, added to its own parse error. */
const RE2_LIMITS = "patterns run on RE2, a linear-time engine without backreferences or lookaround";

/** A pattern that cannot run here: the message names the problem, for a 4xx. */
export class UnsupportedPatternError extends Error {
  readonly status = 422;
  constructor(
    readonly pattern: string,
    reason: string,
  ) {
    super(`${reason} (${RE2_LIMITS})`);
  }
}

/** JavaScript flags a tenant may set, as RE2 flags: i (case), m (lines), s (dot matches newline); u is implied. */
function re2Flags(flags: string): number {
  let out = 0;
  for (const flag of flags) {
    if (flag === "i") out |= RE2JS.CASE_INSENSITIVE;
    else if (flag === "m") out |= RE2JS.MULTILINE;
    else if (flag === "s") out |= RE2JS.DOTALL;
    else if (flag !== "u") throw new UnsupportedPatternError(flags, `unsupported flag "${flag}"`);
  }
  return out;
}

/** Compiles a JavaScript-syntax pattern for RE2; throws UnsupportedPatternError with RE2's reason. */
export function compileLinear(pattern: string, flags = ""): RE2JS {
  const re2 = re2Flags(flags);
  try {
    return RE2JS.compile(RE2JS.translateRegExp(pattern), re2);
  } catch (error) {
    const reason =
      error instanceof Error ? error.message.replace(/^error parsing regexp: /, "") : String(error);
    throw new UnsupportedPatternError(pattern, reason);
  }
}

/** The first match of `pattern` in `text` (its text), or null. */
export function firstMatch(re: RE2JS, text: string): string | null {
  // test() runs on RE2's DFA, several times faster than finding the match's bounds: most answers that fail stop here.
  if (!re.test(text)) return null;
  const matcher = re.matcher(text);
  return matcher.find() ? (matcher.group(0) ?? "") : null;
}

type RegExpLike = { test: (text: string) => boolean; toString: () => string };

/**
 * An ajv `code.regExp` engine: JSON Schema `pattern` and `patternProperties` compile on RE2 (with Unicode, as
 * JSON Schema asks). A pattern RE2 refuses makes `ajv.compile` throw UnsupportedPatternError.
 */
export const linearRegExpEngine = Object.assign(
  (pattern: string, _u: string): RegExpLike => {
    const re = compileLinear(pattern);
    // ajv keys its cache of compiled patterns by toString().
    return { test: (text: string) => re.test(text), toString: () => `re2:/${pattern}/` };
  },
  // Only read by ajv's standalone code generation, which Tollgate does not use.
  { code: 'require("re2js").RE2JS' },
);
