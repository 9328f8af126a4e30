// The Alerts page's forms: the rule form shows the chosen kind's fields only and the owner's kinds; the channel
// form says a stored secret is kept without putting it in the page, and sends an edit without an empty secret.
import { createElement, type ReactElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { I18nProvider } from "@/components/i18n";
import { ChannelForm, channelBody } from "@/features/alerts/components/channel-form";
import { RuleForm } from "@/features/alerts/components/rule-form";
import type { AlertChannelView } from "@/features/alerts/contracts";
import { emptyRuleDraft, type RuleDraft } from "@/features/alerts/page-view";

const html = (element: ReactElement) =>
  // biome-ignore lint/correctness/noChildrenProp: createElement's types want required children among the props
  renderToStaticMarkup(createElement(I18nProvider, { locale: "en", children: element }));
const save = async () => {};
const noop = () => {};
const hook: AlertChannelView = {
  id: "c1",
  name: "Ops hook",
  kind: "webhook",
  enabled: true,
  target: "https://ops.example.com/a",
  config: { url: "https://ops.example.com/a", maxAttempts: 6 },
  secretSet: true,
  updatedAt: "",
};
const ruleForm = (initial: RuleDraft, platform = false) =>
  html(createElement(RuleForm, { initial, editing: null, platform, channels: [hook], save, onCancel: noop }));

describe("the alert rule form", () => {
  it("shows the fields of the chosen kind only", () => {
    const budget = ruleForm(emptyRuleDraft("budget_threshold"));
    expect(budget).toContain('data-testid="field-thresholds"');
    expect(budget).toContain('data-testid="field-period"');
    expect(budget).not.toContain('data-testid="field-percent"');
    // A budget's subject is asked for only when one key or user is meant.
    expect(budget).not.toContain('data-testid="field-subjectId"');
    expect(ruleForm({ ...emptyRuleDraft("budget_threshold"), scope: "key" })).toContain(
      'data-testid="field-subjectId"',
    );
    const failure = ruleForm(emptyRuleDraft("failure_rate"));
    expect(failure).toContain('data-testid="field-alias"');
    expect(failure).toContain('data-testid="field-minCalls"');
    expect(failure).not.toContain('data-testid="field-thresholds"');
    expect(ruleForm(emptyRuleDraft("key_expiring"))).toContain('data-testid="field-days"');
    expect(budget).toContain("Ops hook");
  });

  it("offers the platform its kinds only", () => {
    const platform = ruleForm(emptyRuleDraft("breaker_open"), true);
    expect(platform).toContain('value="breaker_open"');
    expect(platform).not.toContain('value="budget_threshold"');
    expect(ruleForm(emptyRuleDraft())).toContain('value="key_expiring"');
  });
});

describe("the alert channel form", () => {
  it("says a stored secret is kept and never puts it in the page", () => {
    const markup = html(createElement(ChannelForm, { editing: hook, save, onCancel: noop }));
    expect(markup).toContain("Set: leave empty to keep it");
    expect(markup).toMatch(/data-testid="field-secret"[^>]*value=""/);
    expect(markup).toContain('value="https://ops.example.com/a"');
  });

  it("leaves an empty secret or Slack URL out of an edit, and sends them on a new channel", () => {
    const draft = { kind: "webhook" as const, name: "Ops", url: "https://x.example.com", secret: "", to: "" };
    expect(channelBody(draft, true)).toEqual({ name: "Ops", config: { url: "https://x.example.com" } });
    expect(channelBody(draft, false).config).toEqual({ url: "https://x.example.com", secret: "" });
    expect(channelBody({ ...draft, kind: "slack", url: "" }, true).config).toEqual({});
    expect(channelBody({ ...draft, kind: "email", to: "a@x.com, b@x.com" }, true).config).toEqual({
      to: ["a@x.com", "b@x.com"],
    });
  });
});
