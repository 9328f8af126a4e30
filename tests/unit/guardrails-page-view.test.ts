// The guardrails page's pure logic: a rule to its form and back, form messages on the right field, moves, secrets
// kept unseen, and the server's messages placed under their rule.
import { describe, expect, it } from "vitest";
import type { GuardrailRuleView } from "@/features/guardrails/contracts";
import {
  draftOf,
  emptyDraft,
  listedOf,
  messagesByRule,
  moveRule,
  newRuleId,
  ruleOfDraft,
} from "@/features/guardrails/page-view";

const hookView: GuardrailRuleView = {
  id: "hook",
  name: "Policy service",
  stage: "output",
  check: { type: "webhook", url: "https://policy.example.com/x", timeoutMs: 2000, secretSet: true },
  action: "block",
  onError: "open",
  enabled: true,
  scope: { aliases: ["fast"], keys: ["k1"], sources: ["v1"] },
};

describe("the guardrails page's rules", () => {
  it("takes a webhook rule from the GET without its secretSet, and sends it back unchanged (keeping the secret)", () => {
    const listed = listedOf(hookView);
    expect(listed.secretSet).toBe(true);
    expect(listed.rule.check).toEqual({
      type: "webhook",
      url: "https://policy.example.com/x",
      timeoutMs: 2000,
    });
    const again = ruleOfDraft(draftOf(listed), listed);
    expect(again).toEqual({ ok: true, listed });
  });

  it("round-trips every check type through the form", () => {
    const views: GuardrailRuleView[] = [
      { ...hookView, id: "p", check: { type: "pii", entities: ["email"] }, scope: undefined },
      {
        ...hookView,
        id: "r",
        check: { type: "regex", pattern: "a+", flags: "i", label: "a" },
        scope: undefined,
      },
      { ...hookView, id: "d", check: { type: "deny_list", terms: ["x", "y z"] }, scope: undefined },
      { ...hookView, id: "j", check: { type: "json_schema", schema: { type: "object" } }, scope: undefined },
      { ...hookView, id: "m", check: { type: "model", alias: "fast", prompt: "Rude?" }, scope: undefined },
      {
        ...hookView,
        id: "s",
        check: { type: "secrets" },
        action: "redact",
        reversible: true,
        scope: undefined,
      },
    ];
    for (const view of views) {
      const listed = listedOf(view);
      expect(ruleOfDraft(draftOf(listed), listed)).toEqual({ ok: true, listed });
    }
  });

  it("names the form field a bad value is in", () => {
    const draft = { ...emptyDraft(), id: "x", name: "", type: "regex" as const, pattern: "" };
    const result = ruleOfDraft(draft, null);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(Object.keys(result.fields).sort()).toEqual(["name", "pattern"]);
    const terms = ruleOfDraft(
      { ...emptyDraft(), id: "x", name: "n", type: "deny_list", terms: "\n \n" },
      null,
    );
    expect(!terms.ok && Object.keys(terms.fields)).toEqual(["terms"]);
  });

  it("says a schema that is not a JSON object, before any request", () => {
    const result = ruleOfDraft(
      { ...emptyDraft(), id: "j", name: "n", stage: "output", type: "json_schema", schema: "[1]" },
      null,
    );
    expect(result).toMatchObject({ ok: false, schemaProblem: "an object" });
  });

  it("sends a typed secret, and no secret for a new webhook rule left empty", () => {
    const base = {
      ...emptyDraft(),
      id: "h",
      name: "n",
      type: "webhook" as const,
      url: "https://h.example.com",
    };
    const typed = ruleOfDraft({ ...base, secret: "s3" }, null);
    expect(typed.ok && typed.listed).toMatchObject({ rule: { check: { secret: "s3" } }, secretSet: true });
    const empty = ruleOfDraft(base, null);
    expect(empty.ok && empty.listed.rule.check).not.toHaveProperty("secret");
    expect(empty.ok && empty.listed.secretSet).toBe(false);
  });

  it("makes a new id from the name, unique in the list", () => {
    expect(newRuleId("No card numbers!", [])).toBe("no-card-numbers");
    expect(newRuleId("No card numbers", ["no-card-numbers", "no-card-numbers-2"])).toBe("no-card-numbers-3");
    expect(newRuleId("规则", [])).toBe("rule");
  });

  it("moves a rule up or down, and not past either end", () => {
    expect(moveRule(["a", "b", "c"], 1, -1)).toEqual(["b", "a", "c"]);
    expect(moveRule(["a", "b", "c"], 1, 1)).toEqual(["a", "c", "b"]);
    expect(moveRule(["a", "b", "c"], 0, -1)).toEqual(["a", "b", "c"]);
    expect(moveRule(["a", "b", "c"], 2, 1)).toEqual(["a", "b", "c"]);
  });

  it("puts the server's messages under their rule, naming the field", () => {
    const by = messagesByRule({
      "rules.1.check.pattern": ["bad escape (RE2)"],
      "rules.1.id": ["used twice"],
      rules: ["at most 100 rules"],
    });
    expect(by.get(1)).toEqual(["check.pattern: bad escape (RE2)", "id: used twice"]);
    expect(by.get(-1)).toEqual(["at most 100 rules"]);
  });
});
