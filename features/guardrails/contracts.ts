// What the guardrails routes take and answer, shared by the routes, the admin page and the OpenAPI document.
// Browser-safe: zod and the guardrails contract's types and lists only.
import { z } from "@/lib/core/schema/zod";
import {
  GUARDRAIL_ACTIONS,
  GUARDRAIL_SOURCES,
  GUARDRAIL_STAGES,
  type GuardrailAction,
  type GuardrailCheck,
  type GuardrailOutcome,
  type GuardrailPolicy,
  type GuardrailSource,
  type GuardrailStage,
  PII_ENTITIES,
  type PiiEntity,
} from "@/lib/guardrails/types";

export const MAX_RULES = 100;
export const MAX_DENY_TERMS = 1000;
export const MAX_TEST_TEXT = 100_000;

type NonEmpty<T> = readonly [T, ...T[]];
const stage = z.enum(GUARDRAIL_STAGES as NonEmpty<GuardrailStage>);
const action = z.enum(GUARDRAIL_ACTIONS as NonEmpty<GuardrailAction>);
const label = z.string().trim().min(1).max(100).optional();

const httpsUrl = z
  .url({ protocol: /^https$/, error: "an https:// address" })
  .max(2000, "at most 2000 characters");

/** One check, by its type; each type takes only its own settings. */
export const guardrailCheckInput = z.discriminatedUnion("type", [
  z.strictObject({
    type: z.literal("pii"),
    entities: z
      .array(z.enum(PII_ENTITIES as NonEmpty<PiiEntity>))
      .min(1, "name at least one kind, or leave the list out for all")
      .optional(),
  }),
  z.strictObject({ type: z.literal("secrets") }),
  z.strictObject({
    type: z.literal("regex"),
    pattern: z.string().min(1, "a pattern is required").max(2000, "at most 2000 characters"),
    flags: z
      .string()
      .regex(/^(?!.*(.).*\1)[ims]*$/, "flags are i, m and s, each at most once")
      .optional(),
    label,
  }),
  z.strictObject({
    type: z.literal("deny_list"),
    terms: z
      .array(z.string().trim().min(1, "a term cannot be empty").max(200, "a term is at most 200 characters"))
      .min(1, "at least one term")
      .max(MAX_DENY_TERMS, `at most ${MAX_DENY_TERMS} terms`),
    label,
  }),
  z.strictObject({ type: z.literal("injection") }),
  z.strictObject({ type: z.literal("json_schema"), schema: z.record(z.string(), z.unknown()).optional() }),
  z.strictObject({
    type: z.literal("model"),
    alias: z.string().trim().min(1, "a model alias is required").max(200),
    prompt: z.string().max(20_000, "at most 20000 characters").optional(),
    // A stored prompt's text as the judge's instructions: its production version unless a version or label is named.
    promptRef: z
      .strictObject({
        name: z.string().trim().min(1, "a prompt name is required").max(200),
        version: z.number().int().min(1).optional(),
        label: z.string().trim().min(1).max(100).optional(),
      })
      .optional(),
    moderation: z.boolean().optional(),
  }),
  z.strictObject({
    type: z.literal("webhook"),
    url: httpsUrl,
    // Write-only: never answered; left out on a PUT, the rule keeps the secret it has.
    secret: z.string().min(1).max(500, "at most 500 characters").optional(),
    timeoutMs: z.number().int().min(100, "at least 100 ms").max(10_000, "at most 10000 ms").optional(),
  }),
]);

const ids = z.array(z.string().trim().min(1).max(200)).max(1000);
/** Which calls a rule applies to; a list left out means all. */
export const guardrailScopeInput = z.strictObject({
  aliases: ids.optional(),
  keys: ids.optional(),
  users: ids.optional(),
  sources: z.array(z.enum(GUARDRAIL_SOURCES as NonEmpty<GuardrailSource>)).optional(),
});

export const guardrailRuleInput = z
  .strictObject({
    id: z
      .string()
      .trim()
      .min(1, "an id is required")
      .max(64, "at most 64 characters")
      .regex(/^[A-Za-z0-9_.-]+$/, "letters, digits, _ . and - only"),
    name: z.string().trim().min(1, "a name is required").max(100, "at most 100 characters"),
    stage,
    check: guardrailCheckInput,
    action,
    scope: guardrailScopeInput.optional(),
    onError: z.enum(["open", "closed"]).default("closed"),
    reversible: z.boolean().optional(),
    enabled: z.boolean().default(true),
  })
  .superRefine((rule, ctx) => {
    if (rule.check.type === "json_schema" && rule.stage !== "output")
      ctx.addIssue({
        code: "custom",
        path: ["stage"],
        message: "a json_schema check runs on the output only",
      });
    if (rule.check.type === "json_schema" && rule.action === "redact")
      ctx.addIssue({
        code: "custom",
        path: ["action"],
        message: "a json_schema check finds no span to redact: block, warn or log",
      });
    if (rule.reversible && rule.action !== "redact")
      ctx.addIssue({ code: "custom", path: ["reversible"], message: "only a redact rule can be reversible" });
  });

/** PUT /api/governance/guardrails: the tenant's whole policy, rules in the order they apply. */
export const guardrailPolicyInput = z
  .strictObject({
    rules: z.array(guardrailRuleInput).max(MAX_RULES, `at most ${MAX_RULES} rules`),
    holdBackChars: z.number().int().min(0).max(10_000, "at most 10000 characters").optional(),
  })
  .superRefine((policy, ctx) => {
    const seen = new Set<string>();
    for (const [i, rule] of policy.rules.entries()) {
      if (seen.has(rule.id))
        ctx.addIssue({
          code: "custom",
          path: ["rules", i, "id"],
          message: `the id "${rule.id}" is used twice`,
        });
      seen.add(rule.id);
    }
  });

// The parsed input is the contract's policy (lib/guardrails/types.ts): the engine reads what the route stored.
const _isPolicy = (input: z.output<typeof guardrailPolicyInput>): GuardrailPolicy => input;
void _isPolicy;

/** A check as answered: a webhook's secret is never sent back, only whether one is set. */
export type GuardrailCheckView =
  | Exclude<GuardrailCheck, { type: "webhook" }>
  | (Omit<Extract<GuardrailCheck, { type: "webhook" }>, "secret"> & { secretSet: boolean });
export type GuardrailRuleView = Omit<GuardrailPolicy["rules"][number], "check"> & {
  check: GuardrailCheckView;
};

/** GET and PUT /api/governance/guardrails answer the policy with its secrets hidden. */
export type GuardrailPolicyView = {
  rules: GuardrailRuleView[];
  holdBackChars?: number;
  /** When it was last saved (ISO), or null when the tenant never set one. */
  updatedAt: string | null;
};

/** POST /api/governance/guardrails/test: what the saved policy makes of a text at one stage. */
export const guardrailTestInput = z.strictObject({
  text: z.string().max(MAX_TEST_TEXT, `at most ${MAX_TEST_TEXT} characters`),
  stage,
});

export type GuardrailTestHit = {
  ruleId: string;
  ruleName: string;
  entity: string;
  start: number;
  end: number;
  confidence: number;
  action: GuardrailAction;
};
export type GuardrailTestResult = {
  hits: GuardrailTestHit[];
  outcome: GuardrailOutcome;
  /** The text as it would go on: redacted spans replaced (unchanged when nothing was redacted). */
  text: string;
};
