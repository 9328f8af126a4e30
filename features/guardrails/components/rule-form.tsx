"use client";

import { type FormEvent, type ReactNode, useId, useState } from "react";
import { SelectField, TextAreaField, TextField } from "@/components/admin-kit/form";
import { BUTTON, CARD, FieldError, LABEL, PRIMARY } from "@/components/admin-kit/ui";
import { useI18n } from "@/components/i18n";
import {
  GUARDRAIL_ACTIONS,
  GUARDRAIL_SOURCES,
  GUARDRAIL_STAGES,
  type GuardrailCheckType,
  PII_ENTITIES,
} from "@/lib/guardrails/types";
import { type ListedRule, newRuleId, type RuleDraft, ruleOfDraft } from "../page-view";

const CHECK_TYPES: GuardrailCheckType[] = [
  "pii",
  "secrets",
  "regex",
  "deny_list",
  "injection",
  "json_schema",
  "model",
  "webhook",
];

const ON_ERROR = ["closed", "open"] as const satisfies readonly RuleDraft["onError"][];

function Checkbox(props: {
  label: ReactNode;
  checked: boolean;
  onChange: (on: boolean) => void;
  testId: string;
}) {
  return (
    <label className="inline-flex min-w-0 items-center gap-2 text-sm">
      <input
        type="checkbox"
        data-testid={props.testId}
        checked={props.checked}
        onChange={(e) => props.onChange(e.target.checked)}
        className="h-4 w-4 accent-indigo-600"
      />
      {props.label}
    </label>
  );
}

/** The wiring of one field of the form: the form's id, the field's name, what was said about it. */
type Wiring = { id: string; name: string; messages: string[] | undefined };

/** A select of one of a closed list of values, each shown by its own label. */
function ChoiceField<T extends string>(props: {
  wiring: Wiring;
  label: string;
  options: readonly T[];
  optionLabel: (value: T) => string;
  value: T;
  onChange: (value: T) => void;
}) {
  return (
    <SelectField
      {...props.wiring}
      label={props.label}
      value={props.value}
      onChange={(v) => props.onChange(v as T)}
    >
      {props.options.map((option) => (
        <option key={option} value={option}>
          {props.optionLabel(option)}
        </option>
      ))}
    </SelectField>
  );
}

/** A list of ticks (PII kinds, sources): none ticked means all. */
function Ticks<T extends string>(props: {
  legend: string;
  options: readonly T[];
  label: (value: T) => string;
  value: T[];
  onChange: (next: T[]) => void;
  testId: string;
}) {
  return (
    <fieldset className="min-w-0">
      <legend className={LABEL}>{props.legend}</legend>
      <div className="mt-1 flex flex-wrap gap-x-4 gap-y-1">
        {props.options.map((option) => (
          <Checkbox
            key={option}
            testId={`${props.testId}-${option}`}
            label={props.label(option)}
            checked={props.value.includes(option)}
            onChange={(on) =>
              props.onChange(on ? [...props.value, option] : props.value.filter((v) => v !== option))
            }
          />
        ))}
      </div>
    </fieldset>
  );
}

/**
 * One rule's form: name, stage, check and its settings, action, on-error, scope. Checked with the routes' own
 * contract before it goes into the list; the list is saved as a whole by the page.
 */
export function RuleForm(props: {
  initial: RuleDraft;
  /** The rule being edited (null: a new one). */
  previous: ListedRule | null;
  takenIds: string[];
  onApply: (listed: ListedRule) => void;
  onCancel: () => void;
}) {
  const { t } = useI18n();
  const id = useId();
  const [d, setD] = useState<RuleDraft>(props.initial);
  const [fields, setFields] = useState<Record<string, string[]>>({});
  const [schemaProblem, setSchemaProblem] = useState<string | null>(null);
  const set =
    <K extends keyof RuleDraft>(key: K) =>
    (value: RuleDraft[K]) =>
      setD((x) => ({ ...x, [key]: value }));
  const isNew = props.previous === null;

  const apply = (e: FormEvent) => {
    e.preventDefault();
    const draft = isNew && !d.id.trim() ? { ...d, id: newRuleId(d.name, props.takenIds) } : d;
    const result = ruleOfDraft(draft, props.previous);
    if (!result.ok) {
      setFields(result.fields);
      setSchemaProblem(result.schemaProblem ?? null);
      return;
    }
    if (props.takenIds.includes(result.listed.rule.id)) {
      setFields({ id: [t("gr.form.idHint")] });
      return;
    }
    props.onApply(result.listed);
  };
  const f = (name: string): Wiring => ({ id, name, messages: fields[name] });
  // The name a match is reported under, for the regex and deny-list checks alike.
  const labelField = (
    <TextField
      {...f("label")}
      label={t("gr.form.label")}
      hint={t("gr.form.labelHint")}
      value={d.label}
      onChange={set("label")}
    />
  );

  return (
    <form
      onSubmit={apply}
      noValidate
      data-testid="gr-rule-form"
      aria-labelledby={`${id}-title`}
      className={`${CARD} min-w-0 space-y-4 border-indigo-300 p-4 dark:border-indigo-800`}
    >
      <h3 id={`${id}-title`} className="font-semibold">
        {isNew ? t("gr.form.newTitle") : t("gr.form.editTitle")}
      </h3>
      <div className="grid min-w-0 gap-3 sm:grid-cols-2">
        <TextField {...f("name")} label={t("gr.form.name")} value={d.name} onChange={set("name")} />
        <TextField
          {...f("id")}
          label={t("gr.form.id")}
          hint={t("gr.form.idHint")}
          value={d.id}
          placeholder={isNew ? newRuleId(d.name, props.takenIds) : undefined}
          onChange={set("id")}
          controlClassName="font-mono"
        />
        <ChoiceField
          wiring={f("stage")}
          label={t("gr.form.stage")}
          options={GUARDRAIL_STAGES}
          optionLabel={(s) => t(`gr.stage.${s}`)}
          value={d.stage}
          onChange={set("stage")}
        />
        <ChoiceField
          wiring={f("type")}
          label={t("gr.form.check")}
          options={CHECK_TYPES}
          optionLabel={(c) => t(`gr.check.${c}`)}
          value={d.type}
          onChange={set("type")}
        />
      </div>

      <div data-testid="gr-check-settings" className="min-w-0 space-y-3">
        {d.type === "pii" && (
          <Ticks
            legend={t("gr.form.entities")}
            options={PII_ENTITIES}
            label={(e) => e}
            value={d.entities}
            onChange={set("entities")}
            testId="gr-entity"
          />
        )}
        {d.type === "regex" && (
          <div className="grid min-w-0 gap-3 sm:grid-cols-[1fr_8rem_12rem]">
            <TextField
              {...f("pattern")}
              label={t("gr.form.pattern")}
              hint={t("gr.form.patternHint")}
              value={d.pattern}
              spellCheck={false}
              onChange={set("pattern")}
              controlClassName="font-mono"
            />
            <TextField
              {...f("flags")}
              label={t("gr.form.flags")}
              hint={t("gr.form.flagsHint")}
              value={d.flags}
              onChange={set("flags")}
              controlClassName="font-mono"
            />
            {labelField}
          </div>
        )}
        {d.type === "deny_list" && (
          <div className="grid min-w-0 gap-3 sm:grid-cols-[1fr_12rem]">
            <TextAreaField
              {...f("terms")}
              label={t("gr.form.terms")}
              hint={t("gr.form.termsHint")}
              rows={5}
              value={d.terms}
              spellCheck={false}
              listMessages
              onChange={set("terms")}
            />
            {labelField}
          </div>
        )}
        {d.type === "json_schema" && (
          <TextAreaField
            {...f("schema")}
            messages={schemaProblem ? [t("gr.form.schemaInvalid", { detail: schemaProblem })] : fields.schema}
            label={t("gr.form.schema")}
            rows={6}
            value={d.schema}
            spellCheck={false}
            onChange={set("schema")}
            controlClassName="font-mono text-xs"
          />
        )}
        {d.type === "model" && (
          <div className="grid min-w-0 gap-3">
            <TextField {...f("alias")} label={t("gr.form.alias")} value={d.alias} onChange={set("alias")} />
            <Checkbox
              testId="gr-moderation"
              label={t("gr.form.moderation")}
              checked={d.moderation}
              onChange={set("moderation")}
            />
            <TextField
              {...f("promptRef")}
              label={t("gr.form.promptName")}
              value={d.promptName}
              onChange={set("promptName")}
            />
            <TextAreaField
              {...f("prompt")}
              label={t("gr.form.prompt")}
              rows={4}
              value={d.prompt}
              onChange={set("prompt")}
            />
          </div>
        )}
        {d.type === "webhook" && (
          <div className="grid min-w-0 gap-3 sm:grid-cols-2">
            <TextField {...f("url")} label={t("gr.form.url")} value={d.url} onChange={set("url")} />
            <TextField
              {...f("timeoutMs")}
              label={t("gr.form.timeout")}
              hint={t("gr.form.timeoutHint")}
              inputMode="numeric"
              value={d.timeoutMs}
              onChange={set("timeoutMs")}
            />
            <TextField
              {...f("secret")}
              type="password"
              autoComplete="new-password"
              label={t("gr.form.secret")}
              hint={
                props.previous?.secretSet && props.previous.rule.id === d.id
                  ? t("gr.form.secretKept")
                  : t("gr.form.secretHint")
              }
              value={d.secret}
              onChange={set("secret")}
            />
          </div>
        )}
      </div>

      <div className="grid min-w-0 gap-3 sm:grid-cols-2">
        <ChoiceField
          wiring={f("action")}
          label={t("gr.form.action")}
          options={GUARDRAIL_ACTIONS}
          optionLabel={(a) => t(`gr.action.${a}`)}
          value={d.action}
          onChange={set("action")}
        />
        <ChoiceField
          wiring={f("onError")}
          label={t("gr.form.onError")}
          options={ON_ERROR}
          optionLabel={(o) => t(`gr.onError.${o}`)}
          value={d.onError}
          onChange={set("onError")}
        />
      </div>
      {d.action === "redact" && (
        <div>
          <Checkbox
            testId="gr-reversible"
            label={t("gr.form.reversible")}
            checked={d.reversible}
            onChange={set("reversible")}
          />
          <FieldError id={`${id}-reversible-error`} field="reversible" messages={fields.reversible} />
        </div>
      )}
      <TextField {...f("aliases")} label={t("gr.form.aliases")} value={d.aliases} onChange={set("aliases")} />
      <Ticks
        legend={t("gr.form.sources")}
        options={GUARDRAIL_SOURCES}
        label={(s) => t(`gr.source.${s}`)}
        value={d.sources}
        onChange={set("sources")}
        testId="gr-source"
      />
      <FieldError id={`${id}-sources-error`} field="sources" messages={fields.sources} />
      <Checkbox
        testId="gr-enabled"
        label={t("gr.form.enabled")}
        checked={d.enabled}
        onChange={set("enabled")}
      />

      <div className="flex flex-wrap items-center gap-2">
        <button type="submit" data-testid="gr-rule-apply" className={PRIMARY}>
          {t("gr.form.apply")}
        </button>
        <button type="button" data-testid="gr-rule-cancel" onClick={props.onCancel} className={BUTTON}>
          {t("gov.cancel")}
        </button>
        <span className="text-xs text-slate-500 dark:text-slate-400">{t("gr.form.applyHint")}</span>
      </div>
    </form>
  );
}
