"use client";

import { useId, useState } from "react";
import { SelectField, TextAreaField, TextField } from "@/components/admin-kit/form";
import { BUTTON, BUTTON_SM, CARD, ErrorNote, LABEL, messagesOf, PRIMARY } from "@/components/admin-kit/ui";
import { explainWithFields, useFormSubmit } from "@/components/admin-kit/use-form-submit";
import { useI18n } from "@/components/i18n";
import { reviewsApi } from "../client";
import {
  REVIEW_FEEDBACK_SCORE,
  REVIEW_RULE_TYPES,
  REVIEW_RULES_MAX,
  REVIEWER_SCOPES,
  type ReviewQueueView,
  type ReviewRuleType,
} from "../contracts";
import {
  bodyOf,
  draftOf,
  EMPTY_QUEUE,
  newRule,
  type QueueDraft,
  type RuleDraft,
  SAMPLE_SOURCES,
} from "./queue-form-state";

const SHOWN = ["name", "description", "rules", "reviewers", "scoreNames", "datasetId", "leaseSeconds"];

/** What the form picks from: the tenant's live score configs' names and its eval datasets. */
export type QueueChoices = { scoreNames: string[]; datasets: { id: string; name: string }[] };

/** A queue's form: create (no `queue`) or edit; the rules editor adds a rule by type and shows its fields. */
export function QueueForm(props: {
  queue?: ReviewQueueView;
  choices: QueueChoices;
  onCancel: () => void;
  onSaved: (queue: ReviewQueueView) => void;
}) {
  const { t } = useI18n();
  const id = useId();
  const [d, setD] = useState<QueueDraft>(props.queue ? draftOf(props.queue) : EMPTY_QUEUE);
  const { fields, formError, saving, reset, submit } = useFormSubmit(explainWithFields(SHOWN));
  const set = <K extends keyof QueueDraft>(key: K, value: QueueDraft[K]) =>
    setD((prev) => ({ ...prev, [key]: value }));
  const setRule = (i: number, patch: Partial<RuleDraft>) =>
    set(
      "rules",
      d.rules.map((r, j) => (j === i ? { ...r, ...patch } : r)),
    );
  // The thumbs first, then the configs, and any name the queue asks that is no longer a live config.
  const scoreChoices = [
    ...new Set([REVIEW_FEEDBACK_SCORE, ...props.choices.scoreNames, ...(props.queue?.scoreNames ?? [])]),
  ];

  const save = () => {
    const checked = bodyOf(d, t("rv.f.notNumber"));
    if (!checked.ok) {
      reset(checked.fields);
      return;
    }
    reset();
    void submit(async () => {
      const body = checked.body;
      const answer = props.queue
        ? await reviewsApi.update(props.queue.id, { ...body, description: body.description ?? null })
        : await reviewsApi.create(body);
      props.onSaved(answer.queue);
    });
  };

  return (
    <form
      data-testid="rv-queue-form"
      className={`${CARD} min-w-0 space-y-4 p-4`}
      onSubmit={(e) => {
        e.preventDefault();
        save();
      }}
    >
      <h3 className="font-semibold">{props.queue ? t("rv.editTitle") : t("rv.new")}</h3>
      {formError && <ErrorNote message={formError} testId="rv-form-error" />}
      <div className="grid gap-3 sm:grid-cols-2">
        <TextField
          id={id}
          name="name"
          label={t("rv.f.name")}
          value={d.name}
          onChange={(v) => set("name", v)}
          messages={fields.name}
        />
        <SelectField
          id={id}
          name="reviewers"
          label={t("rv.f.reviewers")}
          value={d.reviewers}
          onChange={(v) => set("reviewers", v as QueueDraft["reviewers"])}
          messages={fields.reviewers}
        >
          {REVIEWER_SCOPES.map((s) => (
            <option key={s} value={s}>
              {t(s === "admins" ? "rv.reviewersAdmins" : "rv.reviewersReviewers")}
            </option>
          ))}
        </SelectField>
      </div>
      <TextAreaField
        id={id}
        name="description"
        label={t("rv.f.description")}
        rows={2}
        value={d.description}
        onChange={(v) => set("description", v)}
        messages={fields.description}
      />
      <fieldset className="min-w-0 space-y-2" data-testid="rv-rules">
        <legend className={LABEL}>{t("rv.f.rules")}</legend>
        {!d.rules.length && <p className="text-sm text-slate-500">{t("rv.f.rulesEmpty")}</p>}
        {d.rules.map((rule, i) => (
          <RuleRow
            // Rules have no ids of their own; a row's place is its identity while the form is open.
            // biome-ignore lint/suspicious/noArrayIndexKey: see above
            key={i}
            formId={`${id}-rule-${i}`}
            index={i}
            rule={rule}
            scoreChoices={scoreChoices}
            messages={fields}
            onChange={(patch) => setRule(i, patch)}
            onRemove={() =>
              set(
                "rules",
                d.rules.filter((_, j) => j !== i),
              )
            }
          />
        ))}
        {messagesOf(fields, "rules").length > 0 &&
          !Object.keys(fields).some((k) => k.startsWith("rules.")) && (
            <p data-testid="field-error-rules" className="text-xs text-red-700 dark:text-red-300">
              {messagesOf(fields, "rules").join(" ")}
            </p>
          )}
        {d.rules.length < REVIEW_RULES_MAX && (
          <button
            type="button"
            data-testid="rv-rule-add"
            className={BUTTON_SM}
            onClick={() => set("rules", [...d.rules, newRule()])}
          >
            + {t("rv.f.addRule")}
          </button>
        )}
      </fieldset>
      <fieldset className="min-w-0 space-y-1" data-testid="rv-score-names">
        <legend className={LABEL}>{t("rv.f.scoreNames")}</legend>
        <p className="text-xs text-slate-500">
          {props.choices.scoreNames.length ? t("rv.f.scoreNamesHint") : t("rv.f.noScores")}
        </p>
        <div className="flex flex-wrap gap-x-4 gap-y-1">
          {scoreChoices.map((name) => (
            <label key={name} className="inline-flex items-center gap-1.5 font-mono text-sm">
              <input
                type="checkbox"
                data-testid="rv-score-name"
                value={name}
                checked={d.scoreNames.includes(name)}
                onChange={(e) =>
                  set(
                    "scoreNames",
                    e.target.checked ? [...d.scoreNames, name] : d.scoreNames.filter((n) => n !== name),
                  )
                }
              />
              {name}
            </label>
          ))}
        </div>
        {messagesOf(fields, "scoreNames").length > 0 && (
          <p data-testid="field-error-scoreNames" className="text-xs text-red-700 dark:text-red-300">
            {messagesOf(fields, "scoreNames").join(" ")}
          </p>
        )}
      </fieldset>
      <div className="grid gap-3 sm:grid-cols-2">
        <SelectField
          id={id}
          name="datasetId"
          label={t("rv.f.dataset")}
          value={d.datasetId}
          onChange={(v) => set("datasetId", v)}
          messages={fields.datasetId}
        >
          <option value="">{t("rv.f.noDataset")}</option>
          {props.choices.datasets.map((ds) => (
            <option key={ds.id} value={ds.id}>
              {ds.name}
            </option>
          ))}
        </SelectField>
        <TextField
          id={id}
          name="leaseSeconds"
          label={t("rv.f.lease")}
          hint={t("rv.f.leaseHint")}
          inputMode="numeric"
          value={d.leaseSeconds}
          onChange={(v) => set("leaseSeconds", v)}
          messages={fields.leaseSeconds}
        />
      </div>
      <div className="flex flex-wrap gap-2">
        <button type="submit" data-testid="rv-queue-save" className={PRIMARY} disabled={saving}>
          {t("rv.save")}
        </button>
        <button type="button" className={BUTTON} onClick={props.onCancel}>
          {t("rv.cancel")}
        </button>
      </div>
    </form>
  );
}

/** One rule: its type, then the fields that type has (a score and its threshold; a percent, source and alias). */
function RuleRow(props: {
  formId: string;
  index: number;
  rule: RuleDraft;
  scoreChoices: string[];
  messages: Record<string, string[]>;
  onChange: (patch: Partial<RuleDraft>) => void;
  onRemove: () => void;
}) {
  const { t } = useI18n();
  const { rule, formId } = props;
  const at = (field: string) => props.messages[`rules.${props.index}.${field}`];
  const whole = props.messages[`rules.${props.index}`];
  return (
    <div
      data-testid="rv-rule"
      className="grid min-w-0 gap-2 rounded-md border border-slate-200 p-2 sm:grid-cols-[12rem_1fr_auto] dark:border-slate-800"
    >
      <SelectField
        id={formId}
        name="type"
        testId="rv-rule-type"
        label={t("rv.f.ruleType")}
        value={rule.type}
        onChange={(v) => props.onChange({ type: v as ReviewRuleType })}
        messages={at("type") ?? whole}
      >
        {REVIEW_RULE_TYPES.map((type) => (
          <option key={type} value={type}>
            {t(`rv.rule.${type}`)}
          </option>
        ))}
      </SelectField>
      <div className="grid min-w-0 gap-2 sm:grid-cols-3">
        {rule.type === "score_below" && (
          <>
            <SelectField
              id={formId}
              name="name"
              testId="rv-rule-score"
              label={t("rv.f.scoreName")}
              value={rule.name}
              onChange={(v) => props.onChange({ name: v })}
              messages={at("name")}
            >
              <option value="" />
              {props.scoreChoices.map((n) => (
                <option key={n} value={n}>
                  {n}
                </option>
              ))}
            </SelectField>
            <TextField
              id={formId}
              name="threshold"
              testId="rv-rule-threshold"
              label={t("rv.f.threshold")}
              inputMode="decimal"
              value={rule.threshold}
              onChange={(v) => props.onChange({ threshold: v })}
              messages={at("threshold")}
            />
          </>
        )}
        {rule.type === "sample" && (
          <>
            <TextField
              id={formId}
              name="percent"
              testId="rv-rule-percent"
              label={t("rv.f.percent")}
              inputMode="decimal"
              value={rule.percent}
              onChange={(v) => props.onChange({ percent: v })}
              messages={at("percent")}
            />
            <SelectField
              id={formId}
              name="source"
              testId="rv-rule-source"
              label={t("rv.f.source")}
              value={rule.source}
              onChange={(v) => props.onChange({ source: v })}
              messages={at("source")}
            >
              <option value="">{t("rv.f.anySource")}</option>
              {SAMPLE_SOURCES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </SelectField>
            <TextField
              id={formId}
              name="alias"
              testId="rv-rule-alias"
              label={t("rv.f.alias")}
              value={rule.alias}
              onChange={(v) => props.onChange({ alias: v })}
              messages={at("alias")}
            />
          </>
        )}
      </div>
      <div className="flex items-end">
        <button
          type="button"
          data-testid="rv-rule-remove"
          className={BUTTON_SM}
          aria-label={`${t("rv.f.removeRule")} ${props.index + 1}`}
          onClick={props.onRemove}
        >
          {t("rv.f.removeRule")}
        </button>
      </div>
    </div>
  );
}
