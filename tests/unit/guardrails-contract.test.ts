// The guardrail policy as PUT takes it: every check type's settings, the rules' bounds and combinations, and
// errors that name the offending path.
import { describe, expect, it } from "vitest";
import {
  guardrailPolicyInput,
  guardrailRuleInput,
  guardrailTestInput,
} from "@/features/guardrails/contracts";

const rule = (extra: Record<string, unknown> = {}) => ({
  id: "r1",
  name: "No secrets",
  stage: "input",
  check: { type: "secrets" },
  action: "block",
  ...extra,
});

/** The paths (dot-joined) of a failed parse. */
function pathsOf(input: unknown): string[] {
  const parsed = guardrailPolicyInput.safeParse(input);
  expect(parsed.success).toBe(false);
  return parsed.success ? [] : parsed.error.issues.map((i) => i.path.join("."));
}

describe("the guardrail policy contract", () => {
  it("takes one rule of each check type and fills in onError closed and enabled", () => {
    const checks = [
      { type: "pii", entities: ["email", "iban"] },
      { type: "pii" },
      { type: "secrets" },
      { type: "regex", pattern: "order-\\d+", flags: "im", label: "order" },
      { type: "deny_list", terms: ["project falcon"], label: "codename" },
      { type: "injection" },
      { type: "model", alias: "fast", prompt: "Is this rude?", moderation: false },
      { type: "webhook", url: "https://hooks.example.com/g", secret: "s3cret", timeoutMs: 2000 },
    ];
    const parsed = guardrailPolicyInput.parse({
      rules: [
        ...checks.map((check, i) => rule({ id: `r${i}`, check })),
        rule({ id: "json", stage: "output", check: { type: "json_schema", schema: { type: "object" } } }),
      ],
      holdBackChars: 64,
    });
    expect(parsed.rules).toHaveLength(checks.length + 1);
    expect(parsed.rules[0]).toMatchObject({ onError: "closed", enabled: true });
    expect(parsed.holdBackChars).toBe(64);
  });

  it("keeps a scope, onError open and a reversible redaction", () => {
    const parsed = guardrailRuleInput.parse(
      rule({
        action: "redact",
        reversible: true,
        onError: "open",
        enabled: false,
        scope: { aliases: ["fast"], sources: ["v1", "mcp"] },
      }),
    );
    expect(parsed).toMatchObject({
      reversible: true,
      onError: "open",
      enabled: false,
      scope: { sources: ["v1", "mcp"] },
    });
  });

  it("refuses a second rule with the same id, naming the second", () => {
    expect(pathsOf({ rules: [rule(), rule({ name: "again" })] })).toEqual(["rules.1.id"]);
  });

  it("refuses more than 100 rules", () => {
    const rules = Array.from({ length: 101 }, (_, i) => rule({ id: `r${i}` }));
    expect(pathsOf({ rules })).toEqual(["rules"]);
    expect(guardrailPolicyInput.safeParse({ rules: rules.slice(0, 100) }).success).toBe(true);
  });

  it("bounds the name to 1..100 characters", () => {
    expect(pathsOf({ rules: [rule({ name: " " })] })).toEqual(["rules.0.name"]);
    expect(pathsOf({ rules: [rule({ name: "x".repeat(101) })] })).toEqual(["rules.0.name"]);
  });

  it("refuses an unknown stage, action, onError, check type or source", () => {
    expect(pathsOf({ rules: [rule({ stage: "prompt" })] })).toEqual(["rules.0.stage"]);
    expect(pathsOf({ rules: [rule({ action: "drop" })] })).toEqual(["rules.0.action"]);
    expect(pathsOf({ rules: [rule({ onError: "maybe" })] })).toEqual(["rules.0.onError"]);
    expect(pathsOf({ rules: [rule({ check: { type: "virus" } })] })).toEqual(["rules.0.check.type"]);
    expect(pathsOf({ rules: [rule({ scope: { sources: ["cron"] } })] })).toEqual(["rules.0.scope.sources.0"]);
  });

  it("takes only a check's own settings", () => {
    expect(pathsOf({ rules: [rule({ check: { type: "secrets", pattern: "x" } })] })).toEqual([
      "rules.0.check",
    ]);
    expect(pathsOf({ rules: [rule({ check: { type: "pii", entities: ["dna"] } })] })).toEqual([
      "rules.0.check.entities.0",
    ]);
  });

  it("allows regex flags i, m and s only, each once", () => {
    expect(pathsOf({ rules: [rule({ check: { type: "regex", pattern: "a", flags: "g" } })] })).toEqual([
      "rules.0.check.flags",
    ]);
    expect(pathsOf({ rules: [rule({ check: { type: "regex", pattern: "a", flags: "ii" } })] })).toEqual([
      "rules.0.check.flags",
    ]);
    expect(pathsOf({ rules: [rule({ check: { type: "regex", pattern: "" } })] })).toEqual([
      "rules.0.check.pattern",
    ]);
  });

  it("bounds a deny list: 1..1000 terms, none empty, each at most 200 characters", () => {
    const deny = (terms: string[]) => ({ rules: [rule({ check: { type: "deny_list", terms } })] });
    expect(pathsOf(deny([]))).toEqual(["rules.0.check.terms"]);
    expect(pathsOf(deny(["ok", "  "]))).toEqual(["rules.0.check.terms.1"]);
    expect(pathsOf(deny(["x".repeat(201)]))).toEqual(["rules.0.check.terms.0"]);
    expect(pathsOf(deny(Array.from({ length: 1001 }, (_, i) => `t${i}`)))).toEqual(["rules.0.check.terms"]);
    expect(
      guardrailPolicyInput.safeParse(deny(Array.from({ length: 1000 }, (_, i) => `t${i}`))).success,
    ).toBe(true);
  });

  it("wants a webhook on https with a timeout of 100..10000 ms", () => {
    const hook = (check: Record<string, unknown>) => ({
      rules: [rule({ check: { type: "webhook", url: "https://h.example.com", ...check } })],
    });
    expect(pathsOf(hook({ url: "http://h.example.com" }))).toEqual(["rules.0.check.url"]);
    expect(pathsOf(hook({ timeoutMs: 99 }))).toEqual(["rules.0.check.timeoutMs"]);
    expect(pathsOf(hook({ timeoutMs: 10_001 }))).toEqual(["rules.0.check.timeoutMs"]);
    expect(guardrailPolicyInput.safeParse(hook({ timeoutMs: 100 })).success).toBe(true);
  });

  it("caps a model check's prompt at 20000 characters and wants an alias", () => {
    const judge = (check: Record<string, unknown>) => ({
      rules: [rule({ check: { type: "model", ...check } })],
    });
    expect(pathsOf(judge({ alias: "fast", prompt: "x".repeat(20_001) }))).toEqual(["rules.0.check.prompt"]);
    expect(pathsOf(judge({}))).toEqual(["rules.0.check.alias"]);
  });

  it("runs json_schema on the output only, and never with redact", () => {
    const json = { type: "json_schema" };
    expect(pathsOf({ rules: [rule({ check: json })] })).toEqual(["rules.0.stage"]);
    expect(pathsOf({ rules: [rule({ stage: "output", check: json, action: "redact" })] })).toEqual([
      "rules.0.action",
    ]);
  });

  it("allows reversible only with redact", () => {
    expect(pathsOf({ rules: [rule({ reversible: true })] })).toEqual(["rules.0.reversible"]);
  });

  it("takes a test text with a stage", () => {
    expect(guardrailTestInput.safeParse({ text: "hi", stage: "output" }).success).toBe(true);
    expect(guardrailTestInput.safeParse({ text: "hi", stage: "all" }).success).toBe(false);
  });
});
