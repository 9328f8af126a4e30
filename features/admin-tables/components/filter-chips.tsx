"use client";

import { useI18n } from "@/components/i18n";
import type { FilterDef } from "@/features/admin-tables/contracts";
import type { Locale, Translate } from "@/lib/i18n/messages";
import { formatDateTime, pick, toDate } from "./format";

/** How one active URL filter reads on its chip: the filter's label and its value as the viewer knows it. */
export function chipText(
  name: string,
  value: string,
  filters: FilterDef[],
  t: Translate,
  locale: Locale,
): string {
  const range = name.match(/^(.+)\.(from|to)$/);
  const field = range ? range[1]! : name;
  const filter = filters.find((f) => f.field === field);
  if (!filter) {
    if (name === "tenant" || name === "tenantId") return `${t("tenant.label")}: ${value}`;
    return `${name}: ${value}`;
  }
  const label = pick(filter.label, locale);
  if (filter.type === "select")
    return `${label}: ${pick(filter.options.find((o) => o.value === value)?.label ?? { en: value, zh: value }, locale)}`;
  if (range) {
    // A day stays a day; a preset's instant reads in the viewer's own time.
    const at = /^\d{4}-\d{2}-\d{2}$/.test(value) ? value : toDate(value);
    const time = at instanceof Date ? formatDateTime(at, locale) : (at ?? value);
    return `${label}: ${t(range[2] === "from" ? "tables.since" : "tables.until", { time })}`;
  }
  return `${label}: ${value}`;
}

/** Every active filter as a chip; its × removes that one filter (the URL changes like any filter change). */
export function FilterChips(props: {
  filters: FilterDef[];
  values: Record<string, string>;
  onRemove: (name: string) => void;
}) {
  const { t, locale } = useI18n();
  const active = Object.entries(props.values).filter(([, value]) => value !== "");
  if (active.length === 0) return null;
  return (
    <ul aria-label={t("tables.activeFilters")} className="flex flex-wrap gap-2">
      {active.map(([name, value]) => {
        const text = chipText(name, value, props.filters, t, locale);
        return (
          <li
            key={name}
            data-testid="filter-chip"
            data-name={name}
            className="flex max-w-full items-center gap-1 rounded-full bg-indigo-50 py-0.5 pr-1 pl-2 text-xs text-indigo-800 dark:bg-indigo-950 dark:text-indigo-200"
          >
            <span className="max-w-72 truncate" title={`${name} = ${value}`}>
              {text}
            </span>
            <button
              type="button"
              data-testid="filter-chip-remove"
              aria-label={t("tables.removeChip", { label: text })}
              onClick={() => props.onRemove(name)}
              className="rounded-full px-1 hover:bg-indigo-100 dark:hover:bg-indigo-900"
            >
              ×
            </button>
          </li>
        );
      })}
    </ul>
  );
}
