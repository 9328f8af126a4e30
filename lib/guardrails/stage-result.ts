/** What the engine (and the stream guard) report about a stage: per-rule results, the outcome, headers, events. */
import type { GuardrailAction, GuardrailHit, GuardrailOutcome, GuardrailStage, TextOrigin } from "./types";

export type TextSegment = { text: string; origin: TextOrigin };

/** A hit, with the index of the segment it was found in. */
export type SegmentHit = GuardrailHit & { segment: number };

/** What one rule did: its hits and the action taken on them, or the error that kept its check from running. */
export type RuleResult = {
  ruleId: string;
  ruleName: string;
  hits: SegmentHit[];
  /** The action taken, when the rule hit (a webhook's answer may make it stronger than the rule's own). */
  action?: GuardrailAction;
  /** The check could not run; `onError` says what was done instead. */
  error?: { message: string; onError: "open" | "closed" };
  durationMs: number;
};

export type BlockedBy = { ruleId: string; ruleName: string; entity: string };

export type GuardrailEventCode =
  | "guardrail_blocked"
  | "guardrail_redacted"
  | "guardrail_warned"
  | "guardrail_logged"
  | "guardrail_check_failed";

/** An audit event in the pipeline's `{type: "guardrail", code, message, blocking}` shape, plus the rule's id. */
export type GuardrailEvent = {
  type: "guardrail";
  code: GuardrailEventCode;
  message: string;
  blocking: boolean;
  ruleId: string;
};

export type StageResult = {
  stage: GuardrailStage;
  outcome: GuardrailOutcome;
  rules: RuleResult[];
  /** The segments' texts after redaction, in the order given (unchanged when nothing was redacted or it blocked). */
  texts: string[];
  blockedBy?: BlockedBy;
  headers: Record<string, string>;
  events: GuardrailEvent[];
};
