"use client";

import type { FocusEvent } from "react";
import { INPUT, LABEL } from "@/components/admin-kit/ui";
import { useI18n } from "@/components/i18n";
import { type FormValues, optionsOf, type ScoreField, type ScoreValue } from "./review-form-state";

const OPTION =
  "inline-flex min-h-9 items-center gap-1.5 rounded-md border px-2.5 py-1 text-sm whitespace-nowrap focus-visible:outline-2 focus-visible:outline-indigo-500";
const OFF = "border-slate-300 hover:bg-slate-100 dark:border-slate-700 dark:hover:bg-slate-800";
const ON = "border-indigo-600 bg-indigo-600 text-white dark:border-indigo-400 dark:bg-indigo-500";
const KEY = "rounded border border-current/30 px-1 font-mono text-[0.7rem] leading-4 opacity-80";

/** A score's option as its button says it: Yes / No for a boolean, the category or number itself otherwise. */
function optionLabel(value: ScoreValue, t: ReturnType<typeof useI18n>["t"]): string {
  if (value === true) return t("rv.view.yes");
  if (value === false) return t("rv.view.no");
  return String(value);
}

/**
 * The queue's scores as a form: a button per option (its digit key shown on it; Y / N on a boolean's), a number
 * input for a wide or open range. The field that holds the focus is the one digit keys act on.
 */
export function ScoreForm(props: {
  fields: readonly ScoreField[];
  values: FormValues;
  active: number;
  problems: Record<string, string>;
  onChange: (name: string, value: ScoreValue | undefined) => void;
  onFocusField: (name: string | null) => void;
  disabled: boolean;
}) {
  const { t } = useI18n();
  const leave = (e: FocusEvent<HTMLFieldSetElement>) => {
    if (!(e.relatedTarget instanceof Node && e.currentTarget.contains(e.relatedTarget)))
      props.onFocusField(null);
  };
  return (
    <div data-testid="review-scores" className="space-y-4">
      {props.fields.map((field, index) => {
        const options = optionsOf(field);
        const value = props.values[field.name];
        const problem = props.problems[field.name];
        const errorId = `review-score-${index}-error`;
        return (
          <fieldset
            key={field.name}
            data-testid="review-score"
            data-score-name={field.name}
            data-active={index === props.active || undefined}
            aria-describedby={problem ? errorId : undefined}
            onFocus={() => props.onFocusField(field.name)}
            onBlur={leave}
            className={`min-w-0 space-y-1.5 rounded-md border-l-2 pl-3 ${
              index === props.active ? "border-indigo-500" : "border-transparent"
            }`}
          >
            <legend className="font-mono text-sm font-medium break-all">{field.name}</legend>
            {options.length > 0 ? (
              <div className="flex flex-wrap gap-1.5">
                {options.map((option, i) => {
                  const on = value === option;
                  const key = field.kind === "boolean" ? (option ? "Y" : "N") : String(i + 1);
                  return (
                    <button
                      key={String(option)}
                      type="button"
                      data-review-option=""
                      data-testid="review-option"
                      data-value={String(option)}
                      aria-pressed={on}
                      disabled={props.disabled}
                      onClick={() => props.onChange(field.name, option)}
                      className={`${OPTION} ${on ? ON : OFF}`}
                    >
                      <kbd className={KEY}>{key}</kbd>
                      {optionLabel(option, t)}
                    </button>
                  );
                })}
              </div>
            ) : (
              <div className="max-w-48">
                <label htmlFor={`review-score-${index}`} className={LABEL}>
                  {field.kind === "numeric" && (field.min !== null || field.max !== null)
                    ? t("rv.view.numberHint", {
                        min: String(field.kind === "numeric" ? (field.min ?? "−∞") : ""),
                        max: String(field.kind === "numeric" ? (field.max ?? "∞") : ""),
                      })
                    : field.name}
                </label>
                <input
                  id={`review-score-${index}`}
                  data-testid="review-number"
                  type="number"
                  inputMode="decimal"
                  step="any"
                  min={field.kind === "numeric" ? (field.min ?? undefined) : undefined}
                  max={field.kind === "numeric" ? (field.max ?? undefined) : undefined}
                  value={value === undefined ? "" : String(value)}
                  disabled={props.disabled}
                  aria-invalid={problem ? true : undefined}
                  onChange={(e) =>
                    props.onChange(field.name, e.target.value === "" ? undefined : e.target.value)
                  }
                  className={`mt-1 ${INPUT} tabular-nums`}
                />
              </div>
            )}
            {problem && (
              <p
                id={errorId}
                data-testid="review-score-error"
                className="text-xs text-red-700 dark:text-red-300"
              >
                {problem}
              </p>
            )}
          </fieldset>
        );
      })}
    </div>
  );
}
