"use client";

import { useId, useState } from "react";
import { useI18n } from "@/components/i18n";
import type { FilterDef } from "@/lib/schema-pages/types";
import { pick } from "./format";

const INPUT =
  "w-full rounded-md border border-slate-300 bg-white px-2 py-1 text-sm dark:border-slate-700 dark:bg-slate-900";
const LABEL = "block text-xs font-medium text-slate-600 dark:text-slate-400";
const BUTTON = "rounded-md px-3 py-1 text-sm font-medium";
export const TENANT_FILTER = "tenantId";

/** The URL filter names one declared filter owns: its field, or its field's `.from` and `.to`. */
const namesOf = (filter: FilterDef) =>
  filter.type === "daterange" ? [`${filter.field}.from`, `${filter.field}.to`] : [filter.field];

/**
 * Drafts are applied on Enter or Apply (a select applies at once), so typing does not push a history entry
 * per keystroke. The parent remounts this bar (by key) when the URL's filters change, which resets drafts.
 */
export function FilterBar(props: {
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
  // Filters in the URL that no input shows (a link's f.turnId): listed so they can be seen and removed.
  const extras = Object.entries(props.values).filter(([name]) => !owned.includes(name));
  const set = (name: string, value: string) => setDraft((d) => ({ ...d, [name]: value }));

  const input = (
    name: string,
    label: string,
    type: "text" | "date",
    testId: string,
    placeholder?: string,
  ) => (
    <input
      id={`${id}-${name}`}
      data-testid={testId}
      type={type}
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
      className="flex flex-wrap items-end gap-3 rounded-lg border border-slate-200 bg-white p-3 dark:border-slate-800 dark:bg-slate-900"
    >
      {props.filters.map((filter) => {
        const label = pick(filter.label, locale);
        if (filter.type === "daterange")
          return (
            <fieldset key={filter.field} className="min-w-0">
              <legend className={LABEL}>{label}</legend>
              <div className="mt-1 flex items-center gap-1">
                {input(
                  `${filter.field}.from`,
                  `${label} ${t("schema.from")}`,
                  "date",
                  `filter-${filter.field}-from`,
                )}
                <span aria-hidden="true">–</span>
                {input(
                  `${filter.field}.to`,
                  `${label} ${t("schema.to")}`,
                  "date",
                  `filter-${filter.field}-to`,
                )}
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
                input(filter.field, label, "text", `filter-${filter.field}`)
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
        <div className="w-full min-w-0 sm:w-72">
          <label htmlFor={`${id}-${TENANT_FILTER}`} className={LABEL}>
            {t("tenant.label")}
          </label>
          <div className="mt-1">
            {input(
              TENANT_FILTER,
              t("tenant.label"),
              "text",
              `filter-${TENANT_FILTER}`,
              t("schema.tenantPlaceholder"),
            )}
          </div>
        </div>
      )}
      {extras.map(([name, value]) => (
        <span
          key={name}
          className="flex items-center gap-1 rounded-full bg-indigo-50 py-0.5 pr-1 pl-2 text-xs text-indigo-800 dark:bg-indigo-950 dark:text-indigo-200"
        >
          <span className="max-w-48 truncate font-mono">
            {name} = {value}
          </span>
          <button
            type="button"
            aria-label={t("schema.removeFilter", { name })}
            onClick={() => props.onApply({ [name]: "" })}
            className="rounded-full px-1 hover:bg-indigo-100 dark:hover:bg-indigo-900"
          >
            ×
          </button>
        </span>
      ))}
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
    </form>
  );
}
