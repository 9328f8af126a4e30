// The Alerts page's pure logic: a rule as its form edits it (text fields) and back, and what the list says of a
// rule's params. Browser-safe; unit-tested.
import type { Translate } from "@/lib/i18n/messages";
import { type AlertRuleKind, type AlertRuleView, PLATFORM_RULE_KINDS, RULE_KINDS } from "./contracts";

/** Every field of the rule form, as the inputs hold it. */
export type RuleDraft = {
  name: string;
  kind: AlertRuleKind;
  enabled: boolean;
  channelIds: string[];
  thresholds: string;
  scope: string;
  subjectId: string;
  period: string;
  limit: string;
  multiple: string;
  minSpendUsd: string;
  alias: string;
  percent: string;
  minCalls: string;
  provider: string;
  threshold: string;
  days: string;
};

/** The kinds an owner may pick: the platform's few, or every kind for a tenant. */
export const kindsFor = (platform: boolean): readonly AlertRuleKind[] =>
  platform ? PLATFORM_RULE_KINDS : RULE_KINDS;

/** Which params each kind's form shows. */
export const FIELDS_OF: Record<AlertRuleKind, (keyof RuleDraft)[]> = {
  budget_threshold: ["thresholds", "scope", "subjectId", "period", "limit"],
  run_ceiling: ["thresholds"],
  spend_anomaly: ["multiple", "minSpendUsd"],
  failure_rate: ["alias", "percent", "minCalls"],
  breaker_open: ["provider"],
  unpriced_calls: ["threshold"],
  guardrail_blocks: ["threshold"],
  key_expiring: ["days"],
};

export const emptyRuleDraft = (kind: AlertRuleKind = "budget_threshold"): RuleDraft => ({
  name: "",
  kind,
  enabled: true,
  channelIds: [],
  thresholds: kind === "run_ceiling" ? "80, 100" : "50, 80, 100",
  scope: "any",
  subjectId: "",
  period: "monthly",
  limit: "hard",
  multiple: "3",
  minSpendUsd: "1",
  alias: "",
  percent: "20",
  minCalls: "20",
  provider: "",
  threshold: kind === "guardrail_blocks" ? "10" : "0",
  days: "7",
});

const text = (value: unknown, fallback: string) =>
  Array.isArray(value) ? value.join(", ") : value === undefined || value === null ? fallback : String(value);

export function ruleDraftOf(rule: AlertRuleView): RuleDraft {
  const base = emptyRuleDraft(rule.kind);
  const p = rule.params;
  const draft: RuleDraft = { ...base, name: rule.name, enabled: rule.enabled, channelIds: rule.channelIds };
  for (const field of FIELDS_OF[rule.kind]) draft[field] = text(p[field], base[field] as string) as never;
  return draft;
}

/** A number field as sent: a number when it reads as one, else the text (the server names the problem). */
const num = (value: string): number | string =>
  value.trim() !== "" && Number.isFinite(Number(value)) ? Number(value) : value;

/** The params of the draft's kind, as the API takes them (empty optional fields left out). */
export function paramsOf(d: RuleDraft): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const field of FIELDS_OF[d.kind]) {
    const value = (d[field] as string).trim();
    if (field === "thresholds")
      params.thresholds = value
        .split(/[\s,]+/)
        .filter(Boolean)
        .map(num);
    else if (["alias", "provider", "subjectId"].includes(field)) {
      if (value) params[field] = value;
    } else if (["scope", "period", "limit"].includes(field)) params[field] = value;
    else params[field] = num(value);
  }
  return params;
}

/** What the list says of a rule's params, in a few words. */
export function paramsSummary(t: Translate, rule: Pick<AlertRuleView, "kind" | "params">): string {
  const p = rule.params;
  const list = (v: unknown) => (Array.isArray(v) ? v.map((x) => `${x}%`).join(", ") : "");
  switch (rule.kind) {
    case "budget_threshold":
      return t("al.sum.budget", {
        thresholds: list(p.thresholds),
        period: String(p.period),
        scope: p.subjectId ? `${p.scope} ${String(p.subjectId).slice(0, 8)}…` : String(p.scope),
      });
    case "run_ceiling":
      return t("al.sum.run", { thresholds: list(p.thresholds) });
    case "spend_anomaly":
      return t("al.sum.anomaly", { multiple: String(p.multiple), min: String(p.minSpendUsd) });
    case "failure_rate":
      return t("al.sum.failure", {
        percent: String(p.percent),
        alias: p.alias ? String(p.alias) : t("al.any"),
        calls: String(p.minCalls),
      });
    case "breaker_open":
      return t("al.sum.breaker", { provider: p.provider ? String(p.provider) : t("al.any") });
    case "unpriced_calls":
      return t("al.sum.unpriced", { n: String(p.threshold) });
    case "guardrail_blocks":
      return t("al.sum.blocks", { n: String(p.threshold) });
    case "key_expiring":
      return t("al.sum.keys", { days: String(p.days) });
  }
}
