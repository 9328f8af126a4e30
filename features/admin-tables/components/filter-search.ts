import type { FilterDef, Suggestion } from "@/features/admin-tables/contracts";
import { chipParams, operatorsFor } from "@/features/admin-tables/filter-operators";
import type { Locale, Translate } from "@/lib/i18n/messages";
import { pick } from "./format";

/** One offer of the search box: a filter it would add (the URL values it sets) and how it reads. */
export type SearchEntry = { key: string; text: string; params: Record<string, string> };

/** Suggested values shown under each text filter's own entry. */
const PER_FILTER = 2;
/** The most entries the list shows. */
export const MAX_ENTRIES = 24;

/**
 * What typing `q` offers: for each text filter, "<Label> contains q" (filters that match by containment) and its
 * first suggested values; for each select filter, the options whose label contains q. Every entry is an existing
 * filter (its own index-friendly condition): the box adds no free-text scan of its own.
 */
export function searchEntries(
  q: string,
  filters: FilterDef[],
  suggestions: Record<string, Suggestion[]>,
  t: Translate,
  locale: Locale,
): SearchEntry[] {
  const text = q.trim();
  if (!text) return [];
  const lower = text.toLowerCase();
  const out: SearchEntry[] = [];
  for (const def of filters) {
    const label = pick(def.label, locale);
    if (def.type === "text") {
      const op = operatorsFor(def)[0]!;
      const opText = t(`filters.op.${op}`);
      if (op === "contains")
        out.push({
          key: `${def.field}:q`,
          text: `${label} ${opText} ${text}`,
          params: { [def.field]: text },
        });
      for (const s of (suggestions[def.field] ?? []).slice(0, PER_FILTER))
        if (op !== "contains" || s.value !== text)
          out.push({
            key: `${def.field}:${s.value}`,
            text: `${label} ${opText} ${s.label}`,
            params: chipParams(def, def.field, op, s.value),
          });
    } else if (def.type === "select") {
      for (const o of def.options) {
        const optionLabel = pick(o.label, locale);
        if (optionLabel.toLowerCase().includes(lower) || o.value.toLowerCase().includes(lower))
          out.push({
            key: `${def.field}:${o.value}`,
            text: `${label} ${t("filters.op.is")} ${optionLabel}`,
            params: { [def.field]: o.value },
          });
      }
    }
  }
  return out.slice(0, MAX_ENTRIES);
}
