"use client";

import { useEffect, useState } from "react";
import { InlineConfirm } from "@/components/admin-kit/inline-confirm";
import { BUTTON, CARD, ErrorNote, Pill, PRIMARY, SavedNote, Section } from "@/components/admin-kit/ui";
import { useFormSubmit } from "@/components/admin-kit/use-form-submit";
import { useLoad } from "@/components/admin-kit/use-load";
import { useI18n } from "@/components/i18n";
import type { ApiError } from "@/lib/client/api";
import type { Translate } from "@/lib/i18n/messages";
import { guardrailsApi } from "../client";
import {
  draftOf,
  emptyDraft,
  type ListedRule,
  listedOf,
  messagesByRule,
  moveRule,
  type RuleDraft,
} from "../page-view";
import { RuleForm } from "./rule-form";
import { TestText } from "./test-text";

/** What the list says of a rule's check, in a few words. */
function checkSummary(t: Translate, { rule }: ListedRule): string {
  const c = rule.check;
  switch (c.type) {
    case "pii":
      return c.entities?.length
        ? t("gr.summary.pii", { entities: c.entities.join(", ") })
        : t("gr.summary.piiAll");
    case "regex":
      return `/${c.pattern}/${c.flags ?? ""}`;
    case "deny_list":
      return t("gr.summary.terms", { count: String(c.terms.length) });
    case "json_schema":
      return c.schema ? t("gr.summary.schemaOwn") : t("gr.summary.schemaRequest");
    case "model":
      return t(c.moderation ? "gr.summary.moderation" : "gr.summary.model", { alias: c.alias });
    case "webhook":
      return t("gr.summary.webhook", { host: URL.canParse(c.url) ? new URL(c.url).host : c.url });
    default:
      return t(`gr.check.${c.type}`);
  }
}

type Editing = { index: number | null; draft: RuleDraft };

/** The save's failure: every message goes under its rule, so the form keeps none for itself. */
const keepFields = (error: ApiError) => ({
  fields: error.fields,
  formError: Object.keys(error.fields).length ? null : error.message,
});

/**
 * The tenant's guardrail rules: the list in the order they apply (move, edit, delete, add), saved as a whole,
 * and a box to try the saved rules on a text.
 */
export function GuardrailsAdmin() {
  const { t } = useI18n();
  const { data, error, loading } = useLoad((signal) => guardrailsApi.get(signal));
  const [rules, setRules] = useState<ListedRule[]>([]);
  const [dirty, setDirty] = useState(false);
  const [editing, setEditing] = useState<Editing | null>(null);
  const [asking, setAsking] = useState<string | null>(null);
  const [savedAt, setSavedAt] = useState<number | null>(null);
  const [holdBackChars, setHoldBackChars] = useState<number | undefined>(undefined);
  const { fields, formError, saving, reset, submit } = useFormSubmit(keepFields);

  useEffect(() => {
    if (!data) return;
    setRules(data.rules.map(listedOf));
    setHoldBackChars(data.holdBackChars);
    setDirty(false);
  }, [data]);

  const change = (next: ListedRule[]) => {
    setRules(next);
    setDirty(true);
    reset();
  };
  const save = () =>
    submit(async () => {
      reset();
      const saved = await guardrailsApi.save({ rules: rules.map((r) => r.rule), holdBackChars });
      setRules(saved.rules.map(listedOf));
      setDirty(false);
      setSavedAt(Date.now());
    });
  const byRule = messagesByRule(fields);
  const general = [...(byRule.get(-1) ?? []), ...(formError ? [formError] : [])];

  const form = editing && (
    <RuleForm
      key={editing.index ?? "new"}
      initial={editing.draft}
      previous={editing.index === null ? null : (rules[editing.index] ?? null)}
      takenIds={rules.filter((_, i) => i !== editing.index).map((r) => r.rule.id)}
      onCancel={() => setEditing(null)}
      onApply={(listed) => {
        change(
          editing.index === null
            ? [...rules, listed]
            : rules.map((r, i) => (i === editing.index ? listed : r)),
        );
        setEditing(null);
      }}
    />
  );

  return (
    <div className="min-w-0 space-y-6">
      <Section title={t("gr.rules.title")} lead={t("gr.rules.lead")} testId="gr-rules">
        {error && <ErrorNote message={error.message} />}
        {loading && !data && <p className="text-sm text-slate-500">{t("gov.loading")}</p>}
        {data && !rules.length && !editing && (
          <div data-testid="gr-empty" className="space-y-1 rounded-md bg-slate-50 p-3 dark:bg-slate-950/40">
            <p className="font-medium">{t("gr.empty.title")}</p>
            <p className="text-sm text-slate-600 dark:text-slate-300">{t("gr.empty.body")}</p>
          </div>
        )}
        <ol data-testid="gr-rule-list" className="min-w-0 space-y-2">
          {rules.map((listed, index) => {
            const { rule } = listed;
            const problems = byRule.get(index);
            if (editing?.index === index) return <li key={rule.id}>{form}</li>;
            return (
              <li
                key={rule.id}
                data-testid="gr-rule"
                data-rule-id={rule.id}
                className={`${CARD} min-w-0 space-y-2 p-3 ${rule.enabled === false ? "opacity-70" : ""}`}
              >
                <div className="flex min-w-0 flex-wrap items-baseline gap-x-3 gap-y-1">
                  <span className="text-xs text-slate-500 tabular-nums">{index + 1}.</span>
                  <span data-testid="gr-rule-name" className="min-w-0 font-medium break-words">
                    {rule.name}
                  </span>
                  <code className="text-xs text-slate-500">{rule.id}</code>
                </div>
                <dl className="grid min-w-0 grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-sm sm:grid-cols-[auto_1fr_auto_1fr]">
                  <dt className="text-slate-500">{t("gr.col.stage")}</dt>
                  <dd>{t(`gr.stage.${rule.stage}`)}</dd>
                  <dt className="text-slate-500">{t("gr.col.action")}</dt>
                  <dd>
                    <Pill
                      tone={rule.action === "block" ? "amber" : rule.action === "redact" ? "indigo" : "slate"}
                    >
                      {t(`gr.action.${rule.action}`)}
                    </Pill>
                  </dd>
                  <dt className="text-slate-500">{t("gr.col.check")}</dt>
                  <dd data-testid="gr-rule-check" className="min-w-0 break-all">
                    {checkSummary(t, listed)}
                  </dd>
                  <dt className="text-slate-500">{t("gr.col.onError")}</dt>
                  <dd>{t(`gr.onError.${rule.onError}`)}</dd>
                  <dt className="text-slate-500">{t("gr.col.enabled")}</dt>
                  <dd data-testid="gr-rule-enabled">
                    <Pill tone={rule.enabled === false ? "slate" : "green"}>
                      {rule.enabled === false ? t("gr.off") : t("gr.on")}
                    </Pill>
                  </dd>
                </dl>
                {problems && (
                  <p
                    role="alert"
                    data-testid="gr-rule-error"
                    className="text-sm break-words text-red-700 dark:text-red-300"
                  >
                    {t("gr.ruleErrors", { name: rule.name, messages: problems.join(" ") })}
                  </p>
                )}
                <div className="flex flex-wrap gap-2">
                  <button
                    type="button"
                    data-testid="gr-rule-up"
                    aria-label={t("gr.up", { name: rule.name })}
                    disabled={index === 0 || editing !== null}
                    onClick={() => change(moveRule(rules, index, -1))}
                    className={BUTTON}
                  >
                    ↑
                  </button>
                  <button
                    type="button"
                    data-testid="gr-rule-down"
                    aria-label={t("gr.down", { name: rule.name })}
                    disabled={index === rules.length - 1 || editing !== null}
                    onClick={() => change(moveRule(rules, index, 1))}
                    className={BUTTON}
                  >
                    ↓
                  </button>
                  <InlineConfirm
                    asking={asking === rule.id}
                    onAsk={() => setAsking(rule.id)}
                    onCancel={() => setAsking(null)}
                    onConfirm={() => {
                      setAsking(null);
                      change(rules.filter((_, i) => i !== index));
                    }}
                    action={{
                      label: t("gr.delete"),
                      ariaLabel: t("gr.deleteOf", { name: rule.name }),
                      testId: "gr-rule-delete",
                    }}
                    confirm={{ label: t("gr.deleteConfirm"), testId: "gr-rule-delete-confirm" }}
                    cancelTestId="gr-rule-delete-cancel"
                  >
                    <button
                      type="button"
                      data-testid="gr-rule-edit"
                      aria-label={t("gr.editOf", { name: rule.name })}
                      disabled={editing !== null}
                      onClick={() => setEditing({ index, draft: draftOf(listed) })}
                      className={BUTTON}
                    >
                      {t("gr.edit")}
                    </button>
                  </InlineConfirm>
                </div>
              </li>
            );
          })}
        </ol>
        {editing?.index === null && form}
        {general.length > 0 && <ErrorNote message={general.join(" ")} testId="gr-save-error" />}
        <div className="flex flex-wrap items-center gap-2">
          <button
            type="button"
            data-testid="gr-add"
            disabled={editing !== null || !data}
            onClick={() => setEditing({ index: null, draft: emptyDraft() })}
            className={BUTTON}
          >
            {t("gr.add")}
          </button>
          <button
            type="button"
            data-testid="gr-save"
            disabled={saving || !dirty || editing !== null}
            onClick={() => void save()}
            className={PRIMARY}
          >
            {saving ? t("gov.saving") : t("gr.save")}
          </button>
          {dirty && (
            <span data-testid="gr-unsaved" className="text-sm text-amber-700 dark:text-amber-300">
              {t("gr.unsaved")}
            </span>
          )}
          <SavedNote at={savedAt} />
        </div>
      </Section>
      <TestText />
      <Section title={t("gr.hits.title")} lead={t("gr.hits.lead")} testId="gr-hits">
        <ul className="flex flex-wrap gap-2">
          {HIT_OUTCOMES.map((outcome) => (
            <li key={outcome}>
              <a
                data-testid={`gr-hits-${outcome}`}
                href={`/dev/agent/turns?f.guardrail=${outcome}`}
                className={BUTTON}
              >
                {t(`gr.hits.${outcome}`)}
              </a>
            </li>
          ))}
        </ul>
      </Section>
    </div>
  );
}

/** The outcomes the ledger's Guardrails filter opens from this page, strongest first. */
const HIT_OUTCOMES = ["blocked", "redacted", "warned", "logged"] as const;
