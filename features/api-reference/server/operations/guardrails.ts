import "server-only";
import { z } from "zod";
import {
  guardrailCheckInput,
  guardrailPolicyInput,
  guardrailTestInput,
} from "@/features/guardrails/contracts";
import { GUARDRAIL_ACTIONS, GUARDRAIL_STAGES } from "@/lib/guardrails/types";
import { AT } from "../examples";
import { answer, json, type Operation } from "../registry";

const TAG = "Guardrails";
const stage = z.enum(GUARDRAIL_STAGES);
const action = z.enum(GUARDRAIL_ACTIONS);

// As answered: a webhook's secret is replaced by whether it has one.
const checkView = z.union([
  ...guardrailCheckInput.options.filter((o) => o.shape.type.value !== "webhook"),
  z.object({
    type: z.literal("webhook"),
    url: z.string(),
    timeoutMs: z.number().int().optional(),
    secretSet: z.boolean().describe("whether the rule has a signing secret (never answered itself)"),
  }),
]);
const policyView = z.object({
  rules: z.array(
    z.looseObject({
      id: z.string(),
      name: z.string(),
      stage,
      check: checkView,
      action,
      scope: z.record(z.string(), z.array(z.string())).optional(),
      onError: z.enum(["open", "closed"]),
      reversible: z.boolean().optional(),
      enabled: z.boolean(),
    }),
  ),
  holdBackChars: z.number().int().optional(),
  updatedAt: z.string().nullable().describe("when the policy was last saved; null: never"),
});
const testAnswer = z.object({
  hits: z.array(
    z.object({
      ruleId: z.string(),
      ruleName: z.string(),
      entity: z.string(),
      start: z.number().int(),
      end: z.number().int(),
      confidence: z.number(),
      action,
    }),
  ),
  outcome: z.enum(["passed", "logged", "warned", "redacted", "blocked"]),
  text: z.string().describe("the text as it would go on, redacted spans replaced"),
});

const emailRule = {
  id: "no-card-numbers",
  name: "No card numbers to the model",
  stage: "input" as const,
  check: { type: "regex" as const, pattern: "\\b\\d{4}(?: ?\\d{4}){3}\\b", label: "card" },
  action: "redact" as const,
  onError: "closed" as const,
  enabled: true,
};
const hookRule = {
  id: "policy-hook",
  name: "Our policy service",
  stage: "output" as const,
  check: { type: "webhook" as const, url: "https://policy.example.com/check", timeoutMs: 2000 },
  action: "block" as const,
  onError: "open" as const,
  enabled: true,
};
const policyExample = {
  rules: [emailRule, { ...hookRule, check: { ...hookRule.check, secretSet: true } }],
  updatedAt: AT,
};

export const guardrailOperations: Operation[] = [
  {
    method: "GET",
    path: "/api/governance/guardrails",
    route: "app/api/governance/guardrails/route.ts",
    operationId: "getGuardrails",
    tag: TAG,
    summary: "The tenant's guardrail rules",
    description:
      "In the order they apply. A webhook rule's secret is never answered: `secretSet` says whether it has one.",
    guard: "tenant-admin",
    tenant: true,
    answers: { 200: answer("The policy.", policyView, policyExample, "GuardrailPolicy") },
    errorDialect: "app",
  },
  {
    method: "PUT",
    path: "/api/governance/guardrails",
    route: "app/api/governance/guardrails/route.ts",
    operationId: "saveGuardrails",
    tag: TAG,
    summary: "Replace the tenant's guardrail rules",
    description:
      "The whole policy at once (at most 100 rules, unique ids). A webhook rule sent without `secret` keeps the one " +
      "it has. Every instance applies the new rules within moments.",
    guard: "tenant-admin",
    tenant: true,
    body: json(guardrailPolicyInput, { rules: [emailRule, hookRule] }, "GuardrailPolicyInput"),
    answers: { 200: answer("The policy as saved.", policyView, policyExample, "GuardrailPolicy") },
    errorDialect: "app",
    errors: {
      422: "a rule is invalid, or a regex rule's pattern cannot run on RE2 (the fields name the rule)",
    },
  },
  {
    method: "POST",
    path: "/api/governance/guardrails/test",
    route: "app/api/governance/guardrails/test/route.ts",
    operationId: "testGuardrails",
    tag: TAG,
    summary: "Try the saved rules on a text",
    description:
      "What the enabled rules of one stage find in the text, the outcome, and the text they would let through.",
    guard: "tenant-admin",
    tenant: true,
    body: json(
      guardrailTestInput,
      { text: "card 4111 1111 1111 1111", stage: "input" },
      "GuardrailTestInput",
    ),
    answers: {
      200: answer("The hits and the outcome.", testAnswer, {
        hits: [
          {
            ruleId: "no-card-numbers",
            ruleName: "No card numbers to the model",
            entity: "card",
            start: 5,
            end: 24,
            confidence: 1,
            action: "redact",
          },
        ],
        outcome: "redacted",
        text: "card [card]",
      }),
    },
    errorDialect: "app",
  },
];
