"use client";

import { useEffect, useId, useMemo, useRef, useState } from "react";
import { useI18n } from "@/components/i18n";
import type { FilterDef, Suggestion } from "@/features/admin-tables/contracts";
import { fetchJson, isAbort } from "@/lib/client/api";
import { searchEntries } from "./filter-search";
import { suggestUrl } from "./suggest-input";

const DEBOUNCE_MS = 200;
/** Suggestions asked per text filter: the entries show the first two. */
const SUGGEST_LIMIT = 3;

/**
 * The quick way into the filters: typing offers "Model contains gpt", "User contains gpt"… and the first values
 * each filter suggests (searchEntries); Enter applies the highlighted entry, the first by default.
 */
export function FilterSearch(props: {
  schemaKey: string;
  filters: FilterDef[];
  onApply: (values: Record<string, string>) => void;
  className: string;
}) {
  const { t, locale } = useI18n();
  const listId = useId();
  const [q, setQ] = useState("");
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const [suggestions, setSuggestions] = useState<Record<string, Suggestion[]>>({});
  const controller = useRef<AbortController | null>(null);
  const { schemaKey, filters } = props;

  // Each suggesting filter's first values for q (the suggest route's bounded read), debounced, newest wins.
  useEffect(() => {
    const text = q.trim();
    controller.current?.abort();
    setSuggestions({});
    if (!text) return;
    const timer = setTimeout(() => {
      const c = new AbortController();
      controller.current = c;
      const fields = filters.filter((f) => f.type === "text" && f.suggest).map((f) => f.field);
      for (const field of fields)
        fetchJson<{ values: Suggestion[] }>(
          `${suggestUrl(schemaKey, field, text)}&limit=${SUGGEST_LIMIT}`,
          c.signal,
        ).then(
          (body) => setSuggestions((s) => ({ ...s, [field]: body.values })),
          // Suggestions are a help: without them the "contains" entries still work.
          (error: unknown) => {
            if (!isAbort(error)) setSuggestions((s) => ({ ...s, [field]: [] }));
          },
        );
    }, DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [schemaKey, filters, q]);
  useEffect(() => () => controller.current?.abort(), []);

  const entries = useMemo(
    () => searchEntries(q, filters, suggestions, t, locale),
    [q, filters, suggestions, t, locale],
  );
  const expanded = open && q.trim() !== "";
  const apply = (index: number) => {
    const entry = entries[index];
    if (!entry) return;
    setQ("");
    setOpen(false);
    props.onApply(entry.params);
  };

  return (
    <div className={`relative ${props.className}`}>
      <input
        type="search"
        role="combobox"
        data-testid="filter-search"
        aria-label={t("filters.searchLabel")}
        aria-autocomplete="list"
        aria-expanded={expanded}
        aria-controls={listId}
        aria-activedescendant={expanded && entries[active] ? `${listId}-${active}` : undefined}
        autoComplete="off"
        placeholder={t("filters.search")}
        value={q}
        onChange={(e) => {
          setQ(e.target.value);
          setActive(0);
          setOpen(true);
        }}
        onFocus={() => setOpen(true)}
        onBlur={() => setOpen(false)}
        onKeyDown={(e) => {
          if (e.key === "ArrowDown" || e.key === "ArrowUp") {
            e.preventDefault();
            const n = entries.length;
            if (n) setActive((i) => (e.key === "ArrowDown" ? (i + 1) % n : (i - 1 + n) % n));
          } else if (e.key === "Enter") {
            e.preventDefault();
            apply(active);
          } else if (e.key === "Escape" && expanded) {
            e.preventDefault();
            setOpen(false);
          }
        }}
        className="w-full rounded-md border border-slate-300 bg-white px-2 py-1 text-sm dark:border-slate-700 dark:bg-slate-900"
      />
      {expanded && (
        <div
          id={listId}
          role="listbox"
          aria-label={t("filters.searchResults", { q: q.trim() })}
          data-testid="filter-search-results"
          className="absolute z-30 mt-1 max-h-72 w-full min-w-64 overflow-auto rounded-md border border-slate-200 bg-white py-1 text-sm shadow-lg dark:border-slate-700 dark:bg-slate-900"
        >
          {entries.length === 0 ? (
            <p className="px-2 py-1 text-slate-500">{t("filters.noMatches")}</p>
          ) : (
            entries.map((entry, index) => (
              <div
                key={entry.key}
                id={`${listId}-${index}`}
                role="option"
                tabIndex={-1}
                aria-selected={index === active}
                data-testid="filter-search-entry"
                title={entry.text}
                // mousedown, not click: the input keeps focus, so its blur does not close the list first.
                onMouseDown={(e) => {
                  e.preventDefault();
                  apply(index);
                }}
                className={`cursor-pointer truncate px-2 py-1 ${index === active ? "bg-indigo-100 dark:bg-indigo-900" : "hover:bg-slate-100 dark:hover:bg-slate-800"}`}
              >
                {entry.text}
              </div>
            ))
          )}
        </div>
      )}
    </div>
  );
}
