"use client";

import { useI18n } from "@/components/i18n";
import type { FilterDef } from "@/features/admin-tables/contracts";
import type { FilterChip } from "@/features/admin-tables/filter-operators";
import type { Locale, Translate } from "@/lib/i18n/messages";
import { formatDateTime, pick, toDate } from "./format";

/** The super admin's tenant filter, by name (contained); f.tenantId (links) still narrows to one id. */
export const TENANT_FILTER = "tenant";

const isDay = (value: string) =>
  value.length === 10 && value[4] === "-" && value[7] === "-" && !Number.isNaN(Date.parse(value));

/** A time bound as the viewer reads it: a day stays a day; a preset's instant reads in the viewer's own time. */
function timeText(value: string, locale: Locale): string {
  if (isDay(value)) return value;
  const at = toDate(value);
  return at ? formatDateTime(at, locale) : value;
}

/** A value as the viewer knows it: a select's option label, else the value. */
function valueText(def: FilterDef | undefined, value: string, locale: Locale): string {
  if (def?.type !== "select") return value;
  return pick(def.options.find((o) => o.value === value)?.label ?? { en: value, zh: value }, locale);
}

/** A filter's label: its own, the tenant's, or (a link's extra filter such as f.turnId) its URL name. */
export function filterLabel(field: string, def: FilterDef | undefined, t: Translate, locale: Locale): string {
  if (def) return pick(def.label, locale);
  if (field === TENANT_FILTER || field === "tenantId") return t("tenant.label");
  return field;
}

/** How one chip reads: "Model contains gpt", "Status is not Failed", "Latency (ms) > 500", "Time range: since …". */
export function chipText(chip: FilterChip, filters: FilterDef[], t: Translate, locale: Locale): string {
  const def = filters.find((f) => f.field === chip.field);
  const label = filterLabel(chip.field, def, t, locale);
  if (def?.type === "daterange") {
    const parts = [
      chip.value && t("tables.since", { time: timeText(chip.value, locale) }),
      chip.value2 && t("tables.until", { time: timeText(chip.value2, locale) }),
    ].filter(Boolean);
    return `${label}: ${parts.join(" ")}`;
  }
  if (chip.op === "between") {
    if (chip.value && chip.value2)
      return `${label} ${t("filters.op.between")} ${chip.value} ${t("filters.and")} ${chip.value2}`;
    return chip.value ? `${label} ≥ ${chip.value}` : `${label} ≤ ${chip.value2 ?? ""}`;
  }
  return `${label} ${t(`filters.op.${chip.op}`)} ${valueText(def, chip.value, locale)}`;
}

/** Every active filter as a chip: its text opens it in the editor, its × removes it (the URL changes either way). */
export function FilterChips(props: {
  chips: FilterChip[];
  filters: FilterDef[];
  onEdit: (chip: FilterChip) => void;
  onRemove: (chip: FilterChip) => void;
}) {
  const { t, locale } = useI18n();
  if (props.chips.length === 0) return null;
  return (
    <ul aria-label={t("tables.activeFilters")} className="flex min-w-0 flex-wrap items-center gap-1.5">
      {props.chips.map((chip) => {
        const text = chipText(chip, props.filters, t, locale);
        return (
          <li
            key={chip.names.join(" ")}
            data-testid="filter-chip"
            // The URL name it stands for (a range's first end that is set).
            data-name={chip.op === "between" && !chip.value ? chip.names[1] : chip.names[0]}
            className="flex max-w-full items-center rounded-full bg-indigo-50 text-xs text-indigo-800 dark:bg-indigo-950 dark:text-indigo-200"
          >
            <button
              type="button"
              data-testid="filter-chip-edit"
              aria-label={t("filters.edit", { label: text })}
              title={text}
              onClick={() => props.onEdit(chip)}
              className="max-w-72 truncate rounded-l-full py-0.5 pr-1 pl-2 hover:bg-indigo-100 dark:hover:bg-indigo-900"
            >
              {text}
            </button>
            <button
              type="button"
              data-testid="filter-chip-remove"
              aria-label={t("tables.removeChip", { label: text })}
              onClick={() => props.onRemove(chip)}
              className="rounded-r-full px-1.5 py-0.5 hover:bg-indigo-100 dark:hover:bg-indigo-900"
            >
              ×
            </button>
          </li>
        );
      })}
    </ul>
  );
}
