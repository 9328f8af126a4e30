"use client";

import { useId, useState } from "react";
import { useI18n } from "@/components/i18n";
import type { FilterDef } from "@/features/admin-tables/contracts";
import { FilterChips } from "./filter-chips";
import { pick } from "./format";
import { SuggestInput } from "./suggest-input";
import { ALL_PRESETS, presetRange } from "./time-presets";

const INPUT =
  "w-full rounded-md border border-slate-300 bg-white px-2 py-1 text-sm dark:border-slate-700 dark:bg-slate-900";
const LABEL = "block text-xs font-medium text-slate-600 dark:text-slate-400";
const BUTTON = "rounded-md px-3 py-1 text-sm font-medium";
const PRESET =
  "rounded-full border border-slate-300 px-2 py-0.5 text-xs hover:bg-indigo-50 hover:text-indigo-700 dark:border-slate-700 dark:hover:bg-slate-800 dark:hover:text-indigo-300";
/** The super admin's tenant filter, by name (contained); f.tenantId (links) still narrows to one id. */
export const TENANT_FILTER = "tenant";

/** The URL filter names one declared filter owns: its field, or its field's `.from` and `.to`. */
const namesOf = (filter: FilterDef) =>
  filter.type === "daterange" ? [`${filter.field}.from`, `${filter.field}.to`] : [filter.field];

/** A date input shows a day; a preset's ISO time is kept in the draft (and the chip) but not shown there. */
const asDay = (value: string | undefined) => (value && /^\d{4}-\d{2}-\d{2}$/.test(value) ? value : "");

/**
 * Drafts are applied on Enter or Apply (a select, a picked suggestion and a time preset apply at once), so
 * typing does not push a history entry per keystroke. The parent remounts this bar (by key) when the URL's
 * filters change, which resets drafts. Active filters show as chips that remove them.
 */
export function FilterBar(props: {
  schemaKey: string;
  filters: FilterDef[];
  superAdmin: boolean;
  values: Record<string, string>;
  onApply: (values: Record<string, string>) => void;
  onClear: () => void;
}) {
  const { t, locale } = useI18n();
  const id = useId();
  const owned = props.filters.flatMap(namesOf);
  if (props.superAdmin) owned.push(TENANT_FILTER);
  const [draft, setDraft] = useState(() => Object.fromEntries(owned.map((n) => [n, props.values[n] ?? ""])));
  const set = (name: string, value: string) => setDraft((d) => ({ ...d, [name]: value }));

  const dateInput = (name: string, label: string, testId: string) => (
    <input
      id={`${id}-${name}`}
      data-testid={testId}
      type="date"
      value={asDay(draft[name])}
      aria-label={label}
      onChange={(e) => set(name, e.target.value)}
      className={`${INPUT} min-w-0 flex-1`}
    />
  );
  const textInput = (name: string, label: string, suggest: boolean, placeholder?: string) =>
    suggest ? (
      <SuggestInput
        schemaKey={props.schemaKey}
        field={name}
        id={`${id}-${name}`}
        label={label}
        value={draft[name] ?? ""}
        testId={`filter-${name}`}
        placeholder={placeholder}
        onChange={(value) => set(name, value)}
        onPick={(value) => props.onApply({ [name]: value })}
        className={INPUT}
      />
    ) : (
      <input
        id={`${id}-${name}`}
        data-testid={`filter-${name}`}
        type="text"
        value={draft[name] ?? ""}
        placeholder={placeholder}
        aria-label={label}
        onChange={(e) => set(name, e.target.value)}
        className={INPUT}
      />
    );

  return (
    <form
      aria-label={t("schema.filters")}
      onSubmit={(e) => {
        e.preventDefault();
        props.onApply(draft);
      }}
      className="space-y-3 rounded-lg border border-slate-200 bg-white p-3 dark:border-slate-800 dark:bg-slate-900"
    >
      <div className="flex flex-wrap items-end gap-3">
        {props.filters.map((filter) => {
          const label = pick(filter.label, locale);
          if (filter.type === "daterange")
            return (
              // Full width on a phone, the two dates sharing it (a date input's own minimum would stick out).
              <fieldset key={filter.field} className="w-full min-w-0 sm:w-auto">
                <legend className={LABEL}>{label}</legend>
                <div className="mt-1 flex min-w-0 items-center gap-1">
                  {dateInput(
                    `${filter.field}.from`,
                    `${label} ${t("schema.from")}`,
                    `filter-${filter.field}-from`,
                  )}
                  <span aria-hidden="true">–</span>
                  {dateInput(`${filter.field}.to`, `${label} ${t("schema.to")}`, `filter-${filter.field}-to`)}
                </div>
                <div title={t("tables.presets")} className="mt-1 flex flex-wrap gap-1">
                  {(filter.presets ?? ALL_PRESETS).map((preset) => (
                    <button
                      key={preset}
                      type="button"
                      data-testid={`preset-${filter.field}-${preset}`}
                      onClick={() => {
                        const range = presetRange(preset, new Date());
                        props.onApply({
                          [`${filter.field}.from`]: range.from,
                          [`${filter.field}.to`]: range.to,
                        });
                      }}
                      className={PRESET}
                    >
                      {t(`tables.preset.${preset}`)}
                    </button>
                  ))}
                </div>
              </fieldset>
            );
          return (
            <div key={filter.field} className="w-full min-w-0 sm:w-44">
              <label htmlFor={`${id}-${filter.field}`} className={LABEL}>
                {label}
              </label>
              <div className="mt-1">
                {filter.type === "text" ? (
                  textInput(filter.field, label, filter.suggest === true)
                ) : (
                  <select
                    id={`${id}-${filter.field}`}
                    data-testid={`filter-${filter.field}`}
                    value={draft[filter.field] ?? ""}
                    onChange={(e) => {
                      set(filter.field, e.target.value);
                      props.onApply({ [filter.field]: e.target.value });
                    }}
                    className={INPUT}
                  >
                    <option value="">{t("schema.any")}</option>
                    {filter.options.map((o) => (
                      <option key={o.value} value={o.value}>
                        {pick(o.label, locale)}
                      </option>
                    ))}
                  </select>
                )}
              </div>
            </div>
          );
        })}
        {props.superAdmin && (
          <div className="w-full min-w-0 sm:w-56">
            <label htmlFor={`${id}-${TENANT_FILTER}`} className={LABEL}>
              {t("tenant.label")}
            </label>
            <div className="mt-1">
              {textInput(TENANT_FILTER, t("tenant.label"), true, t("tables.tenantName"))}
            </div>
          </div>
        )}
        <div className="ml-auto flex gap-2">
          <button
            type="submit"
            data-testid="filter-apply"
            className={`${BUTTON} bg-indigo-600 text-white hover:bg-indigo-700 dark:bg-indigo-500 dark:hover:bg-indigo-400`}
          >
            {t("schema.apply")}
          </button>
          <button
            type="button"
            data-testid="filter-clear"
            onClick={props.onClear}
            className={`${BUTTON} border border-slate-300 hover:bg-slate-100 dark:border-slate-700 dark:hover:bg-slate-800`}
          >
            {t("schema.clear")}
          </button>
        </div>
      </div>
      <FilterChips
        filters={props.filters}
        values={props.values}
        onRemove={(name) => props.onApply({ [name]: "" })}
      />
    </form>
  );
}
