"use client";

import { useId, useState } from "react";
import { SelectField, TextField } from "@/components/admin-kit/form";
import { BUTTON, CARD, ErrorNote, LABEL, messagesOf, PRIMARY } from "@/components/admin-kit/ui";
import { explainWithFields, useFormSubmit } from "@/components/admin-kit/use-form-submit";
import { useI18n } from "@/components/i18n";
import type { AlertChannelView, AlertRuleKind, AlertRuleView } from "../contracts";
import { emptyRuleDraft, FIELDS_OF, kindsFor, type RuleDraft } from "../page-view";

const SHOWN = [
  "name",
  "kind",
  "channelIds",
  "params",
  ...Object.values(FIELDS_OF)
    .flat()
    .map((f) => `params.${f}`),
];

/** Create or edit one rule: its name, kind, the kind's params and the channels it goes to. */
export function RuleForm(props: {
  initial: RuleDraft;
  editing: AlertRuleView | null;
  platform: boolean;
  channels: AlertChannelView[];
  save: (draft: RuleDraft) => Promise<void>;
  onCancel: () => void;
}) {
  const { t } = useI18n();
  const id = useId();
  const [d, setD] = useState<RuleDraft>(props.initial);
  const { fields, formError, saving, submit } = useFormSubmit(explainWithFields(SHOWN));
  const set = <K extends keyof RuleDraft>(key: K, value: RuleDraft[K]) =>
    setD((prev) => ({ ...prev, [key]: value }));
  const shown = new Set(FIELDS_OF[d.kind]);
  const param = (name: keyof RuleDraft, label: string, hint?: string) => (
    <TextField
      id={id}
      name={name}
      label={label}
      hint={hint}
      value={d[name] as string}
      onChange={(v) => set(name, v as never)}
      messages={messagesOf(fields, `params.${name}`)}
    />
  );

  return (
    <form
      data-testid="al-rule-form"
      className={`${CARD} min-w-0 space-y-3 p-3`}
      onSubmit={(e) => {
        e.preventDefault();
        void submit(() => props.save(d));
      }}
    >
      <h3 className="font-medium">
        {props.editing ? t("al.rule.editOf", { name: props.editing.name }) : t("al.rule.new")}
      </h3>
      <div className="grid min-w-0 gap-3 sm:grid-cols-2">
        <TextField
          id={id}
          name="name"
          label={t("al.col.name")}
          value={d.name}
          onChange={(v) => set("name", v)}
          messages={messagesOf(fields, "name")}
        />
        <SelectField
          id={id}
          name="kind"
          label={t("al.col.kind")}
          value={d.kind}
          disabled={!!props.editing}
          onChange={(v) =>
            // A new kind starts from its own defaults; the name, channels and switch stay.
            setD((prev) => ({
              ...emptyRuleDraft(v as AlertRuleKind),
              name: prev.name,
              channelIds: prev.channelIds,
              enabled: prev.enabled,
            }))
          }
          messages={messagesOf(fields, "kind")}
        >
          {kindsFor(props.platform).map((k) => (
            <option key={k} value={k}>
              {t(`al.kind.${k}`)}
            </option>
          ))}
        </SelectField>
        {shown.has("thresholds") && param("thresholds", t("al.f.thresholds"), t("al.f.thresholdsHint"))}
        {shown.has("scope") && (
          <SelectField
            id={id}
            name="scope"
            label={t("al.f.scope")}
            value={d.scope}
            onChange={(v) => set("scope", v)}
            messages={messagesOf(fields, "params.scope")}
          >
            {["any", "tenant", "key", "user"].map((s) => (
              <option key={s} value={s}>
                {t(`al.scope.${s as "any"}`)}
              </option>
            ))}
          </SelectField>
        )}
        {shown.has("subjectId") &&
          (d.scope === "key" || d.scope === "user") &&
          param("subjectId", t("al.f.subjectId"), t("al.f.subjectIdHint"))}
        {shown.has("period") && (
          <SelectField
            id={id}
            name="period"
            label={t("al.f.period")}
            value={d.period}
            onChange={(v) => set("period", v)}
            messages={messagesOf(fields, "params.period")}
          >
            <option value="daily">{t("al.period.daily")}</option>
            <option value="monthly">{t("al.period.monthly")}</option>
          </SelectField>
        )}
        {shown.has("limit") && (
          <SelectField
            id={id}
            name="limit"
            label={t("al.f.limit")}
            value={d.limit}
            onChange={(v) => set("limit", v)}
            messages={messagesOf(fields, "params.limit")}
          >
            <option value="hard">{t("al.limit.hard")}</option>
            <option value="soft">{t("al.limit.soft")}</option>
          </SelectField>
        )}
        {shown.has("multiple") && param("multiple", t("al.f.multiple"))}
        {shown.has("minSpendUsd") && param("minSpendUsd", t("al.f.minSpendUsd"))}
        {shown.has("alias") && param("alias", t("al.f.alias"), t("al.f.anyHint"))}
        {shown.has("percent") && param("percent", t("al.f.percent"))}
        {shown.has("minCalls") && param("minCalls", t("al.f.minCalls"))}
        {shown.has("provider") && param("provider", t("al.f.provider"), t("al.f.anyHint"))}
        {shown.has("threshold") && param("threshold", t("al.f.threshold"))}
        {shown.has("days") && param("days", t("al.f.days"))}
      </div>
      <fieldset className="min-w-0">
        <legend className={LABEL}>{t("al.col.channels")}</legend>
        {!props.channels.length && <p className="text-sm text-slate-500">{t("al.rule.noChannels")}</p>}
        <div className="mt-1 flex flex-wrap gap-x-4 gap-y-1">
          {props.channels.map((c) => (
            <label key={c.id} className="inline-flex min-w-0 items-center gap-2 text-sm">
              <input
                type="checkbox"
                data-testid="al-rule-channel"
                className="h-4 w-4 accent-indigo-600"
                checked={d.channelIds.includes(c.id)}
                onChange={(e) =>
                  set(
                    "channelIds",
                    e.target.checked ? [...d.channelIds, c.id] : d.channelIds.filter((x) => x !== c.id),
                  )
                }
              />
              <span className="break-words">{c.name}</span>
            </label>
          ))}
        </div>
        {messagesOf(fields, "channelIds").map((m) => (
          <p
            key={m}
            data-testid="field-error-channelIds"
            className="mt-1 text-xs text-red-700 dark:text-red-300"
          >
            {m}
          </p>
        ))}
      </fieldset>
      <label className="inline-flex items-center gap-2 text-sm">
        <input
          type="checkbox"
          data-testid="field-enabled"
          className="h-4 w-4 accent-indigo-600"
          checked={d.enabled}
          onChange={(e) => set("enabled", e.target.checked)}
        />
        {t("al.col.enabled")}
      </label>
      {formError && <ErrorNote message={formError} />}
      <div className="flex flex-wrap gap-2">
        <button type="submit" data-testid="al-rule-save" disabled={saving} className={PRIMARY}>
          {t("al.save")}
        </button>
        <button type="button" data-testid="al-rule-cancel" onClick={props.onCancel} className={BUTTON}>
          {t("al.cancel")}
        </button>
      </div>
    </form>
  );
}
