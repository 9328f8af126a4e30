"use client";

import { Field } from "@/components/admin-kit/form";
import { ModelAliasSelect } from "@/components/admin-kit/model-select";
import { BUTTON, INPUT, LABEL } from "@/components/admin-kit/ui";
import { useI18n } from "@/components/i18n";
import type { ModelInfo } from "@/lib/gateway/types";
import type { MessageKey } from "@/lib/i18n/messages";
import { newDraft, SCORER_FIELDS, SCORER_TYPES, type ScorerDraft, type ScorerType } from "../scorer-drafts";

/** The scorers of a run or a dataset's defaults: add, change and remove each, with the fields its type takes. */
export function ScorerBuilder(props: {
  id: string;
  drafts: ScorerDraft[];
  onChange: (drafts: ScorerDraft[]) => void;
  models: ModelInfo[];
  /** Messages by scorer index and field, from the last attempt to save. */
  errors?: { index: number; field: string; error: string }[];
  /** What an empty list means, said under it. */
  emptyHint: string;
}) {
  const { t } = useI18n();
  const set = (index: number, next: ScorerDraft) =>
    props.onChange(props.drafts.map((d, i) => (i === index ? next : d)));
  return (
    <fieldset data-testid={`${props.id}-scorers`} className="min-w-0 space-y-2">
      <legend className={LABEL}>{t("evals.scorers")}</legend>
      {props.drafts.length === 0 && (
        <p className="text-xs text-slate-500 dark:text-slate-400">{props.emptyHint}</p>
      )}
      {props.drafts.map((draft, index) => {
        const errorsHere = (props.errors ?? []).filter((e) => e.index === index);
        return (
          <div
            // biome-ignore lint/suspicious/noArrayIndexKey: drafts have no identity beyond their place
            key={index}
            data-testid="scorer-draft"
            data-type={draft.type}
            className="grid gap-2 rounded-md border border-slate-200 p-2 sm:grid-cols-[10rem_minmax(0,1fr)_auto] dark:border-slate-800"
          >
            <label className="min-w-0">
              <span className="sr-only">{t("evals.scorerType")}</span>
              <select
                data-testid="scorer-type"
                value={draft.type}
                onChange={(e) => set(index, newDraft(e.target.value as ScorerType))}
                className={INPUT}
              >
                {SCORER_TYPES.map((type) => (
                  <option key={type} value={type}>
                    {t(`evals.scorer.${type}` as MessageKey)}
                  </option>
                ))}
              </select>
            </label>
            <div className="flex min-w-0 flex-wrap gap-2">
              {SCORER_FIELDS[draft.type].map((field) => {
                const error = errorsHere.find((e) => e.field === field.name);
                const update = (value: string) =>
                  set(index, { ...draft, fields: { ...draft.fields, [field.name]: value } });
                const value = draft.fields[field.name] ?? "";
                const wide = field.kind === "json" || field.name === "rubric";
                return (
                  <Field
                    key={field.name}
                    controlId={`${props.id}-scorer-${index}-${field.name}`}
                    field={field.name}
                    label={t(`evals.field.${field.name}` as MessageKey)}
                    messages={error ? [error.error] : undefined}
                    className={`min-w-0 ${wide ? "basis-full" : "flex-1 basis-32"}`}
                  >
                    {(wiring) =>
                      wide ? (
                        <textarea
                          {...wiring}
                          data-testid={`scorer-${field.name}`}
                          value={value}
                          rows={2}
                          onChange={(e) => update(e.target.value)}
                          placeholder={field.kind === "json" ? "{ }" : ""}
                          className={`mt-1 font-mono ${INPUT}`}
                        />
                      ) : field.kind === "model" ? (
                        <ModelAliasSelect
                          {...wiring}
                          data-testid={`scorer-${field.name}`}
                          models={props.models}
                          emptyLabel="—"
                          value={value}
                          onChange={update}
                          className={`mt-1 ${INPUT}`}
                        />
                      ) : (
                        <input
                          {...wiring}
                          data-testid={`scorer-${field.name}`}
                          value={value}
                          inputMode={field.kind === "number" ? "decimal" : undefined}
                          placeholder={
                            field.name === "value" && field.kind === "text"
                              ? t("evals.field.valueHint")
                              : undefined
                          }
                          onChange={(e) => update(e.target.value)}
                          className={`mt-1 ${INPUT}`}
                        />
                      )
                    }
                  </Field>
                );
              })}
              {(draft.type === "contains" || draft.type === "exact") && (
                <label className="flex items-center gap-1 self-end pb-1.5 text-sm">
                  <input
                    type="checkbox"
                    checked={draft.caseSensitive}
                    onChange={(e) => set(index, { ...draft, caseSensitive: e.target.checked })}
                  />
                  {t("evals.field.caseSensitive")}
                </label>
              )}
              {errorsHere
                .filter((e) => !SCORER_FIELDS[draft.type].some((f) => f.name === e.field))
                .map((e) => (
                  <span key={e.field} className="basis-full text-xs text-red-700 dark:text-red-300">
                    {e.error}
                  </span>
                ))}
            </div>
            <button
              type="button"
              data-testid="scorer-remove"
              onClick={() => props.onChange(props.drafts.filter((_, i) => i !== index))}
              className={`${BUTTON} self-start`}
              aria-label={t("evals.removeScorer")}
              title={t("evals.removeScorer")}
            >
              ×
            </button>
          </div>
        );
      })}
      <button
        type="button"
        data-testid="scorer-add"
        onClick={() => props.onChange([...props.drafts, newDraft()])}
        className={BUTTON}
      >
        + {t("evals.addScorer")}
      </button>
    </fieldset>
  );
}
