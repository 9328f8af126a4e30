/**
 * Masks secrets in audit payloads (tool arguments and results, model requests, error messages)
 * before they are written. Two passes: object keys that name a credential hide their whole value,
 * and known secret shapes are replaced inside any string, wherever they sit in it.
 */
import type { RE2JS } from "re2js";
import { compileLinear } from "./linear-regex";

export type MaskOptions = { extraPatterns?: RegExp[] };

const MASKED = "[masked]";
const CIRCULAR = "[circular]";
const marker = (kind: string) => `[masked:${kind}]`;

// Matched against the key lower-cased with "-" and "_" removed, so "X-Api-Key" and "client_secret" hit.
const SECRET_KEY =
  /(?:password|passwd|pwd|secret|token|apikey|accesskey|accesstoken|refreshtoken|authorization|auth|cookie|setcookie|privatekey|clientsecret|awssecretaccesskey|session)$/;

function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key.toLowerCase().replace(/[-_]/g, ""));
}

/** Where a rule's secret sits inside its match (offsets relative to the match) and what replaces it. */
type SecretInMatch = { start: number; end: number; replacement: string };
// A rule's match may carry context around the secret (a URL's user, a key's name): `secret` says which part is the
// secret, or null when the match turns out not to be one (a failed Luhn check, prose after "Bearer").
// `hint` is a literal the rule's match must contain: a text without it skips the rule's scan (most prose has none).
type Rule = {
  kind: string;
  hint: RegExp;
  pattern: RegExp;
  secret: (match: RegExpExecArray) => SecretInMatch | null;
};

const whole = (match: RegExpExecArray, replacement: string): SecretInMatch => ({
  start: 0,
  end: match[0].length,
  replacement,
});
// The secret runs from after the context in front of it to the end of the match, less `tail` characters.
const after = (match: RegExpExecArray, prefix: string, replacement: string, tail = 0): SecretInMatch => ({
  start: prefix.length,
  end: match[0].length - tail,
  replacement,
});

// Random tokens almost always carry a digit or mixed case; prose after "Bearer" does not.
function looksLikeToken(token: string): boolean {
  if (token.length < 8) return false;
  if (/\d/.test(token)) return true;
  return token.length >= 20 && /[a-z]/.test(token) && /[A-Z]/.test(token.slice(1));
}

// Basic credentials are base64("user:password"): decoding is a precise test that spares "basic idea".
function isBasicCredential(token: string): boolean {
  // atob throws on anything else, and a thrown error costs microseconds: "Basic Basic Basic…" paid it per word.
  if (token.length < 4 || token.length % 4 === 1 || !/^[A-Za-z0-9+/]+={0,2}$/.test(token)) return false;
  let decoded: string;
  try {
    decoded = atob(token);
  } catch {
    return false;
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters mean it is not text
  return decoded.length >= 3 && decoded.includes(":") && !/[\u0000-\u001f\u007f]/.test(decoded);
}

function passesLuhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

// A value that an earlier rule already masked is left as it is.
const alreadyMasked = (value: string) => value.startsWith("[masked");

/**
 * Applied in order; every pattern is anchored by a lookbehind or a literal prefix so a long
 * token-like run (a base64 blob) is scanned once rather than from every position in it, and every part of a
 * pattern is either bounded or cannot overlap the part after it, so no input makes one backtrack: the cost
 * is linear in the string's length (tests/security/redos.test.ts holds each rule to that with its worst input).
 */
const RULES: Rule[] = [
  {
    kind: "private_key",
    hint: /-----BEGIN /,
    // An unterminated block (a truncated payload) is masked to the end rather than leaked. The label's words
    // ("RSA", "ENCRYPTED", "OPENSSH"; "BLOCK" after it for PGP) are bounded: unbounded, "-----BEGIN " followed
    // by "PRIVATE KEY " many times took quadratic time.
    pattern:
      /-----BEGIN (?:[A-Z0-9]{1,16} ){0,3}PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END (?:[A-Z0-9]{1,16} ){0,3}PRIVATE KEY(?: BLOCK)?-----|[\s\S]*$)/g,
    secret: (match) => whole(match, marker("private_key")),
  },
  {
    kind: "password",
    hint: /:\/\//,
    // The password is greedy up to the authority's last "@", so an unencoded "@" in it is masked too. Scheme,
    // user and password are bounded, so a long run without "@" costs one bounded scan per scheme.
    pattern: /(?<![\w+.-])([a-z][\w+.-]{0,31}:\/\/[^\s:/?#@"'<>]{0,256}:)[^\s/?#"'<>]{1,256}@/gi,
    secret: (match) => after(match, match[1]!, marker("password"), 1),
  },
  {
    kind: "tollgate_key",
    hint: /tg_/,
    // Tollgate's own API keys (lib/keys: "tg_" and 24 random bytes in base64url, 32 characters), first among the
    // vendor rules so none of them takes a piece of one.
    pattern: /(?<![\w-])tg_[A-Za-z0-9_-]{32}(?![\w-])/g,
    secret: (match) => whole(match, marker("tollgate_key")),
  },
  {
    kind: "jwt",
    hint: /eyJ/,
    // A signed JWT (three parts, the signature empty for alg "none") or an encrypted one (five parts, the key
    // part empty for "dir": Auth.js session cookies). Parts are split by "." which no part holds: no backtracking.
    pattern: /(?<![\w-])eyJ[\w-]+\.(?:[\w-]*\.[\w-]+\.[\w-]+\.[\w-]+|[\w-]+\.[\w-]*)/g,
    secret: (match) => whole(match, marker("jwt")),
  },
  {
    kind: "anthropic_key",
    hint: /sk-ant-/,
    pattern: /(?<![\w-])sk-ant-[\w-]{20,}/g,
    secret: (match) => whole(match, marker("anthropic_key")),
  },
  {
    kind: "openai_key",
    hint: /sk-/,
    // "sk-ant-" belongs to the rule above; the digit test spares long hyphenated slugs like "sk-some-name".
    pattern: /(?<![\w-])sk-(?!ant-)[\w-]{20,}/g,
    secret: (match) => (/\d/.test(match[0]) ? whole(match, marker("openai_key")) : null),
  },
  {
    kind: "github_token",
    hint: /gh[pousr]_|github_pat_/,
    pattern: /(?<!\w)(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_\w{22,})(?!\w)/g,
    secret: (match) => whole(match, marker("github_token")),
  },
  {
    kind: "stripe_key",
    hint: /_live_|_test_|whsec_/,
    // Secret, restricted and publishable keys (publishable ones are public by design, but name an account) and
    // webhook signing secrets.
    pattern:
      /(?<![\w-])(?:(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9+/=]{24,})(?![A-Za-z0-9])/g,
    secret: (match) => whole(match, marker("stripe_key")),
  },
  {
    kind: "slack_token",
    hint: /xox|xapp-/,
    // Bot, user, app-level, refresh and configuration tokens: xoxb-, xoxp-, xoxa-, xoxr-, xoxs-, xoxe-, xapp-.
    pattern: /(?<![\w-])(?:xox[abprse](?:\.[\w-]+)?-[A-Za-z0-9-]{10,}|xapp-\d-[A-Za-z0-9-]{10,})/g,
    secret: (match) => whole(match, marker("slack_token")),
  },
  {
    kind: "slack_webhook",
    hint: /hooks\.slack/,
    // Whoever has the URL can post to the channel: the path after /services/ (or workflows, triggers) is the secret.
    pattern: /(https:\/\/hooks\.slack(?:-gov)?\.com\/(?:services|workflows|triggers)\/)[A-Za-z0-9/_-]+/g,
    secret: (match) => after(match, match[1]!, marker("slack_webhook")),
  },
  {
    kind: "google_api_key",
    hint: /AIza/,
    pattern: /(?<![\w-])AIza[0-9A-Za-z_-]{35}(?![\w-])/g,
    secret: (match) => whole(match, marker("google_api_key")),
  },
  {
    kind: "aws_key",
    hint: /AKIA|ASIA/,
    pattern: /(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])/g,
    secret: (match) => whole(match, marker("aws_key")),
  },
  {
    kind: "aws_secret_key",
    hint: /secret/i,
    // Only after a hint: any 40-character run (a commit id, a hash) would match the shape alone.
    pattern:
      /((?:aws[_-]?)?secret[_-]?access[_-]?key["']?\s{0,16}[:=]\s{0,16}["']?)[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/gi,
    secret: (match) => after(match, match[1]!, marker("aws_secret_key")),
  },
  {
    kind: "bearer",
    hint: /bearer|basic/i,
    pattern: /\b(Bearer|Basic)(\s+)([\w.~+/-]+=*)/gi,
    secret: (match) => {
      const [, scheme = "", space = "", token = ""] = match;
      const isBearer = scheme.toLowerCase() === "bearer";
      const secret = isBearer ? looksLikeToken(token) : isBasicCredential(token);
      return secret ? after(match, scheme + space, marker(isBearer ? "bearer" : "basic")) : null;
    },
  },
  {
    kind: "card",
    hint: /\d/,
    // Networks start 2-6, which spares epoch milliseconds; "+" and "." before it mean a phone or a decimal.
    pattern: /(?<![\w.+-])[2-6]\d(?:[ -]?\d){11,17}(?!\w|[.,]\d)/g,
    secret: (match) => {
      const digits = match[0].replace(/\D/g, "");
      return passesLuhn(digits) ? whole(match, marker(`card …${digits.slice(-4)}`)) : null;
    },
  },
  {
    kind: "keyed_json",
    hint: /:/,
    // "password": "…" inside serialized JSON (or a Python repr) in a string: the key rule, applied to text.
    pattern:
      /((["'])([\w.-]{1,64})\2\s*:\s*)("[^"\\]*(?:\\.[^"\\]*)*"|'[^'\\]*(?:\\.[^'\\]*)*'|-?\d[\d.eE+-]*)/g,
    secret: (match) => {
      const [, prefix = "", , key = "", value = ""] = match;
      if (!isSecretKey(key) || alreadyMasked(value.slice(1))) return null;
      // A quoted value keeps its quotes; a bare number becomes a quoted marker, so the JSON stays valid.
      if (/^["']/.test(value)) return after(match, prefix + value[0], MASKED, 1);
      return after(match, prefix, `"${MASKED}"`);
    },
  },
  {
    kind: "keyed_assignment",
    hint: /=/,
    // password=… in query strings, form bodies, cookies, env dumps and logfmt.
    pattern: /(?<![\w.-])([A-Za-z][\w.-]{0,63})=(?!=)([^\s&"'<>;,)}]+)/g,
    secret: (match) => {
      const [, key = "", value = ""] = match;
      return isSecretKey(key) && !alreadyMasked(value) ? after(match, `${key}=`, MASKED) : null;
    },
  },
];

const linearCopies = new WeakMap<RegExp, RE2JS>();

// Operator patterns see outside text, so they run on RE2 (linear time), never on V8's backtracking engine; every
// match is masked, whether or not the pattern has the "g" flag.
function asLinear(pattern: RegExp): RE2JS {
  let copy = linearCopies.get(pattern);
  if (!copy) {
    copy = compileLinear(pattern.source, pattern.flags.replace(/[gyd]/g, ""));
    linearCopies.set(pattern, copy);
  }
  return copy;
}

/**
 * What every rule above needs somewhere in a string to match (each rule's literal part, or for cards thirteen
 * digits, the fewest a card number has, spaces or dashes between them; for the keyed rules ":" or "="): a string with none of it cannot hold a secret any rule finds, and is
 * returned after this one scan instead of fifteen (most audit strings: model names, keys, short prose).
 */
const MAYBE_SECRET =
  /-----BEGIN|:\/\/|tg_|sk-|gh[pousr]_|github_pat_|_live_|_test_|whsec_|xox|xapp-|hooks\.slack|AIza|AKIA|ASIA|secret|bearer|basic|eyJ|\d(?:[ -]?\d){12}|[=:]/i;

/**
 * The longest string masked whole (characters): a longer one is cut here first, and the cut is marked, so masking
 * costs at most this much per string (each rule is linear) and an audit row never holds megabytes of one value.
 */
export const MAX_MASKED_LENGTH = 32_768;

// Characters a secret token is made of: a cut never leaves the first half of one behind.
const TOKEN_CHAR = /[\w+/=.~-]/;
const MAX_TOKEN_BACKUP = 1_024;

/** The string cut to MAX_MASKED_LENGTH, ending before any token the cut would split, with a marker saying so. */
export function cutForMasking(text: string): string {
  if (text.length <= MAX_MASKED_LENGTH) return text;
  let end = MAX_MASKED_LENGTH;
  const floor = end - MAX_TOKEN_BACKUP;
  while (end > floor && TOKEN_CHAR.test(text[end - 1]!) && TOKEN_CHAR.test(text[end]!)) end--;
  return `${text.slice(0, end)}…[cut: ${text.length - end} more characters]`;
}

function replaceSecrets(text: string, rule: Rule): string {
  if (!rule.hint.test(text)) return text;
  let out = "";
  let copied = 0;
  for (const match of text.matchAll(rule.pattern)) {
    const secret = rule.secret(match);
    if (!secret) continue;
    out += text.slice(copied, match.index + secret.start) + secret.replacement;
    copied = match.index + secret.end;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** One secret in a text: its kind (the rule's name: `aws_key`, `jwt`, `password`…) and its UTF-16 span. */
export type SecretSpan = { kind: string; start: number; end: number };

/**
 * The secrets maskText would hide, as spans into `text` (whole, never cut): each rule runs on the original text, and a
 * span overlapping one an earlier rule found is dropped, as masking in rule order would have hidden it already.
 */
export function findSecrets(text: string): SecretSpan[] {
  if (!MAYBE_SECRET.test(text)) return [];
  const found: SecretSpan[] = [];
  for (const rule of RULES) {
    if (!rule.hint.test(text)) continue;
    const before = found.length;
    for (const match of text.matchAll(rule.pattern)) {
      const secret = rule.secret(match);
      if (!secret) continue;
      const span = { kind: rule.kind, start: match.index + secret.start, end: match.index + secret.end };
      if (!overlapsAny(found, before, span)) found.push(span);
    }
  }
  return found.sort((a, b) => a.start - b.start);
}

// Earlier rules' spans are the first `count` of `spans`; a rule's own matches never overlap each other.
function overlapsAny(spans: SecretSpan[], count: number, span: SecretSpan): boolean {
  for (let i = 0; i < count; i++) {
    const other = spans[i]!;
    if (other.start < span.end && span.start < other.end) return true;
  }
  return false;
}

function maskWith(input: string, custom: RE2JS[]): string {
  const text = cutForMasking(input);
  if (!custom.length && !MAYBE_SECRET.test(text)) return text;
  let out = text;
  for (const rule of RULES) out = replaceSecrets(out, rule);
  for (const pattern of custom) {
    // An empty match would insert a marker between every character.
    out = pattern.matcher(out).replaceAll((match: string) => (match === "" ? match : marker("custom")));
  }
  return out;
}

/** Masks the secrets found in one string; text without secrets comes back identical. */
export function maskText(text: string, options: MaskOptions = {}): string {
  return maskWith(text, customPatterns(options));
}

let operatorSource: string | undefined;
let operatorPatterns: RE2JS[] = [];

/**
 * The operator's MASK_PATTERNS, compiled once for each value the variable has: every masking call applies them
 * after the built-in rules. Start-up calls it first, so a pattern that does not compile stops the process.
 */
export function operatorMaskPatterns(env: Record<string, string | undefined> = process.env): RE2JS[] {
  const source = env.MASK_PATTERNS;
  if (source !== operatorSource) {
    operatorPatterns = patternsFromEnv(env).map(asLinear);
    operatorSource = source;
  }
  return operatorPatterns;
}

const customPatterns = (options: MaskOptions): RE2JS[] => {
  const extra = (options.extraPatterns ?? []).map(asLinear);
  const operator = operatorMaskPatterns();
  return operator.length ? [...operator, ...extra] : extra;
};

// Marks a value JSON would leave out (undefined, a function, a symbol).
const OMIT = Symbol("omit");

function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  // A plain assignment to "__proto__" would replace the prototype instead of adding the key.
  if (key === "__proto__") Object.defineProperty(target, key, { value, enumerable: true, writable: true });
  else target[key] = value;
}

function hasToJSON(value: object): value is { toJSON: () => unknown } {
  return typeof (value as { toJSON?: unknown }).toJSON === "function";
}

function walk(value: unknown, custom: RE2JS[], ancestors: Set<object>): unknown {
  if (typeof value === "string") return maskWith(value, custom);
  if (typeof value === "bigint") return value.toString();
  if (value === undefined || typeof value === "function" || typeof value === "symbol") return OMIT;
  if (value === null || typeof value !== "object") return value;
  // Only a reference to an object still being walked is a cycle; a shared sibling is copied normally.
  if (ancestors.has(value)) return CIRCULAR;
  ancestors.add(value);
  try {
    if (hasToJSON(value)) return walk(value.toJSON(), custom, ancestors);
    if (Array.isArray(value)) {
      return value.map((item) => {
        const masked = walk(item, custom, ancestors);
        return masked === OMIT ? null : masked;
      });
    }
    const out: Record<string, unknown> = {};
    // JSON would turn an Error into {}: keep what says what went wrong.
    if (value instanceof Error) {
      out.name = value.name;
      out.message = maskWith(value.message, custom);
      if (value.cause !== undefined) out.cause = walk(value.cause, custom, ancestors);
    }
    for (const [key, item] of Object.entries(value)) {
      if (item === undefined || typeof item === "function" || typeof item === "symbol") continue;
      if (isSecretKey(key)) {
        setOwn(out, key, MASKED);
        continue;
      }
      const masked = walk(item, custom, ancestors);
      if (masked !== OMIT) setOwn(out, maskWith(key, custom), masked);
    }
    return out;
  } finally {
    ancestors.delete(value);
  }
}

/**
 * Returns a masked deep copy of `value`, shaped as JSON would serialize it (Dates become ISO
 * strings, functions and undefined are dropped, a cycle becomes "[circular]"). Never mutates `value`.
 */
export function maskSecrets<T>(value: T, options: MaskOptions = {}): T {
  const masked = walk(value, customPatterns(options), new Set());
  return (masked === OMIT ? undefined : masked) as T;
}

/** Reads MASK_PATTERNS, a JSON array of regex source strings, into global regexes. */
export function patternsFromEnv(env: Record<string, string | undefined> = process.env): RegExp[] {
  const raw = env.MASK_PATTERNS?.trim();
  if (!raw) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new Error(`MASK_PATTERNS must be a JSON array of regex source strings, got ${raw}`);
  }
  if (!Array.isArray(parsed)) {
    throw new Error(`MASK_PATTERNS must be a JSON array of regex source strings, got ${raw}`);
  }
  return parsed.map((source: unknown, index) => {
    if (typeof source !== "string") {
      throw new Error(`MASK_PATTERNS[${index}] must be a string, got ${JSON.stringify(source)}`);
    }
    let pattern: RegExp;
    try {
      pattern = new RegExp(source, "g");
      asLinear(pattern);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`MASK_PATTERNS[${index}] is not a valid regex: ${JSON.stringify(source)} (${reason})`);
    }
    // A pattern that matches nothing at all ("", "a*") is an operator mistake, not a secret shape.
    if (new RegExp(source).test("")) {
      throw new Error(`MASK_PATTERNS[${index}] matches the empty string: ${JSON.stringify(source)}`);
    }
    return pattern;
  });
}
