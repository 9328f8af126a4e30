// The rule form shows each check's own settings, says a stored webhook secret is kept without showing it, and
// offers reversibility only for a redaction.
import { createElement, type ReactElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { I18nProvider } from "@/components/i18n";
import { RuleForm } from "@/features/guardrails/components/rule-form";
import { draftOf, emptyDraft, type ListedRule, type RuleDraft } from "@/features/guardrails/page-view";

const html = (element: ReactElement) =>
  // biome-ignore lint/correctness/noChildrenProp: createElement's types want required children among the props
  renderToStaticMarkup(createElement(I18nProvider, { locale: "en", children: element }));
const noop = () => {};
const form = (initial: RuleDraft, previous: ListedRule | null = null) =>
  html(createElement(RuleForm, { initial, previous, takenIds: [], onApply: noop, onCancel: noop }));

describe("the guardrail rule form", () => {
  it("shows the settings of the chosen check only", () => {
    const regex = form({ ...emptyDraft(), type: "regex", pattern: "a+" });
    expect(regex).toContain('data-testid="field-pattern"');
    expect(regex).not.toContain('data-testid="field-terms"');
    const deny = form({ ...emptyDraft(), type: "deny_list", terms: "x\ny" });
    expect(deny).toContain('data-testid="field-terms"');
    expect(deny).not.toContain('data-testid="field-pattern"');
    expect(form({ ...emptyDraft(), type: "pii" })).toContain('data-testid="gr-entity-email"');
  });

  it("says a stored webhook secret is kept, and never puts it in the page", () => {
    const previous: ListedRule = {
      rule: {
        id: "hook",
        name: "Hook",
        stage: "output",
        check: { type: "webhook", url: "https://h.example.com" },
        action: "block",
        onError: "closed",
      },
      secretSet: true,
    };
    const markup = form(draftOf(previous), previous);
    expect(markup).toContain("A secret is set and kept");
    expect(markup).toMatch(/data-testid="field-secret"[^>]*value=""/);
    expect(form({ ...emptyDraft(), type: "webhook" })).toContain("never shown again");
  });

  it("offers reversibility with redact only", () => {
    expect(form({ ...emptyDraft(), action: "redact" })).toContain('data-testid="gr-reversible"');
    expect(form({ ...emptyDraft(), action: "block" })).not.toContain('data-testid="gr-reversible"');
  });
});
