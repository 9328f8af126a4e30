/**
 * The guardrails contract: what a tenant's policy says (rules of stage, check, action, scope and on-error), what a
 * check finds (hits with a span and a confidence), and what the policy makes of a text (the verdict). The checks
 * (lib/guardrails/checks/), the engine (lib/guardrails/engine.ts), the store and API (features/guardrails) and the
 * pipeline step all speak these types. Framework- and database-free.
 */

/** Where in a call a rule looks: what goes to the model, a tool's arguments, what comes back. */
export type GuardrailStage = "input" | "tool_input" | "output";
export const GUARDRAIL_STAGES: readonly GuardrailStage[] = ["input", "tool_input", "output"];

/** What a rule does with a hit, strongest first. */
export type GuardrailAction = "block" | "redact" | "warn" | "log";
export const GUARDRAIL_ACTIONS: readonly GuardrailAction[] = ["block", "redact", "warn", "log"];

/** Where a call came from (a rule's scope may name some). */
export type GuardrailSource = "drawer" | "v1" | "mcp" | "schedule" | "eval";
export const GUARDRAIL_SOURCES: readonly GuardrailSource[] = ["drawer", "v1", "mcp", "schedule", "eval"];

/** The kinds of personal data the `pii` check knows. */
export type PiiEntity = "email" | "phone" | "payment_card" | "iban" | "us_ssn" | "ip_address" | "national_id";
export const PII_ENTITIES: readonly PiiEntity[] = [
  "email",
  "phone",
  "payment_card",
  "iban",
  "us_ssn",
  "ip_address",
  "national_id",
];

/**
 * Where a piece of text came from. Injection heuristics treat text that entered from outside the conversation
 * (a tool's result, an attachment, a context item, an MCP tool's description) as the indirect path: stricter, and
 * reported apart from what the user typed.
 */
export type TextOrigin =
  | "user"
  | "system"
  | "assistant"
  | "tool_result"
  | "attachment"
  | "context"
  | "mcp_description"
  | "tool_input"
  | "output";

/** One check of a rule, as stored and as `PUT /api/governance/guardrails` takes it. */
export type GuardrailCheck =
  | { type: "pii"; entities?: PiiEntity[] }
  | { type: "secrets" }
  | { type: "regex"; pattern: string; flags?: string; label?: string }
  | { type: "deny_list"; terms: string[]; label?: string }
  | { type: "injection" }
  /** Output: the answer parses as JSON and matches `schema`, or the request's `response_format` schema. */
  | { type: "json_schema"; schema?: Record<string, unknown> }
  /**
   * An LLM judge through one of the tenant's aliases (its instructions `prompt`, or a prompt of the prompt store by
   * `promptRef`), or a moderation model (`moderation`: the alias serves OpenAI's moderations).
   */
  | {
      type: "model";
      alias: string;
      prompt?: string;
      promptRef?: { name: string; version?: number; label?: string };
      moderation?: boolean;
    }
  /** The tenant's HTTPS endpoint answers allow / block / redact (with spans); signed with the rule's secret. */
  | { type: "webhook"; url: string; secret?: string; timeoutMs?: number };
export type GuardrailCheckType = GuardrailCheck["type"];

/** Which calls a rule applies to; an absent list means all. */
export type GuardrailScope = {
  aliases?: string[];
  keys?: string[];
  users?: string[];
  sources?: GuardrailSource[];
};

export type GuardrailRule = {
  id: string;
  name: string;
  stage: GuardrailStage;
  check: GuardrailCheck;
  action: GuardrailAction;
  scope?: GuardrailScope;
  /** A check that cannot run (timeout, webhook down): `closed` blocks, `open` passes and says so. */
  onError: "open" | "closed";
  /** With `redact`: placeholders that the answer the caller gets has turned back into the originals. */
  reversible?: boolean;
  enabled?: boolean;
};

export type GuardrailPolicy = {
  rules: GuardrailRule[];
  /** Output rules on a stream hold back this many characters so a span can be cut before it reaches the caller. */
  holdBackChars?: number;
};

/** One finding: what (entity: `email`, `aws_access_key`, `injection`, the regex's label…), where, how sure. */
export type GuardrailHit = {
  check: GuardrailCheckType;
  entity: string;
  start: number;
  end: number;
  /** 0..1: 1 for a checksum-verified number, lower for a shape alone. */
  confidence: number;
};

/** A deterministic check: synchronous, linear in the text's length. */
export type TextCheck = (text: string, origin: TextOrigin) => GuardrailHit[];

/** What the policy made of one stage of a call. */
export type GuardrailOutcome = "passed" | "logged" | "warned" | "redacted" | "blocked";
