"use client";

import { useEffect, useId, useRef, useState } from "react";
import { useI18n } from "@/components/i18n";
import type { Suggestion } from "@/features/admin-tables/contracts";
import { fetchJson, isAbort } from "@/lib/client/api";

/** `/api/schema/<key>/suggest?field=&q=`: a filter's values from the data (the viewer's tenant only). */
export const suggestUrl = (schemaKey: string, field: string, q: string) =>
  `/api/schema/${encodeURIComponent(schemaKey)}/suggest?${new URLSearchParams({ field, q })}`;

const DEBOUNCE_MS = 150;

/**
 * A text filter that offers values from the data as the user types (the ARIA combobox pattern: the list
 * follows the arrow keys, Enter or a click picks, Escape closes). Typing and Enter still apply free text, which
 * matches by containment; picking a value applies it at once.
 */
export function SuggestInput(props: {
  schemaKey: string;
  /** The field the suggestions are for (the filter's field, or "tenant"). */
  field: string;
  id: string;
  label: string;
  value: string;
  testId: string;
  placeholder?: string;
  onChange: (value: string) => void;
  onPick: (value: string) => void;
  className: string;
  /** Marks the input as the value a popover focuses first. */
  dataValueInput?: boolean;
}) {
  const { t } = useI18n();
  const listId = useId();
  const [open, setOpen] = useState(false);
  const [items, setItems] = useState<Suggestion[]>([]);
  const [loaded, setLoaded] = useState(false);
  const [active, setActive] = useState(-1);
  const [query, setQuery] = useState<string | null>(null);
  const controller = useRef<AbortController | null>(null);
  const { schemaKey, field } = props;

  // The list is asked for when the input is focused or typed into (query set), debounced, newest wins.
  useEffect(() => {
    if (query === null) return;
    const timer = setTimeout(() => {
      controller.current?.abort();
      const c = new AbortController();
      controller.current = c;
      fetchJson<{ values: Suggestion[] }>(suggestUrl(schemaKey, field, query), c.signal).then(
        (body) => {
          setItems(body.values);
          setLoaded(true);
          setActive(-1);
        },
        (error: unknown) => {
          // Suggestions are a help: when they fail the input still filters by what is typed.
          if (!isAbort(error)) setItems([]);
        },
      );
    }, DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [schemaKey, field, query]);
  useEffect(() => () => controller.current?.abort(), []);

  const pick = (value: string) => {
    setOpen(false);
    setActive(-1);
    props.onChange(value);
    props.onPick(value);
  };
  const expanded = open && loaded;

  return (
    <div className="relative">
      <input
        id={props.id}
        data-testid={props.testId}
        data-value-input={props.dataValueInput || undefined}
        type="text"
        role="combobox"
        aria-label={props.label}
        aria-autocomplete="list"
        aria-expanded={expanded}
        aria-controls={listId}
        aria-activedescendant={expanded && active >= 0 ? `${listId}-${active}` : undefined}
        autoComplete="off"
        value={props.value}
        placeholder={props.placeholder}
        onFocus={() => {
          setOpen(true);
          setQuery(props.value);
        }}
        onBlur={() => setOpen(false)}
        onChange={(e) => {
          props.onChange(e.target.value);
          setOpen(true);
          setQuery(e.target.value);
        }}
        onKeyDown={(e) => {
          if (e.key === "ArrowDown" || e.key === "ArrowUp") {
            e.preventDefault();
            setOpen(true);
            if (items.length === 0) return;
            const n = items.length;
            setActive((i) => (e.key === "ArrowDown" ? (i + 1) % n : i <= 0 ? n - 1 : i - 1));
          } else if (e.key === "Enter" && expanded && active >= 0 && items[active]) {
            e.preventDefault();
            pick(items[active].value);
          } else if (e.key === "Escape" && expanded) {
            e.preventDefault();
            setOpen(false);
          }
        }}
        className={props.className}
      />
      {expanded && (
        <div
          id={listId}
          role="listbox"
          aria-label={t("tables.suggestions", { label: props.label })}
          data-testid={`suggestions-${field}`}
          className="absolute z-30 mt-1 max-h-64 w-full min-w-48 overflow-auto rounded-md border border-slate-200 bg-white py-1 text-sm shadow-lg dark:border-slate-700 dark:bg-slate-900"
        >
          {items.length === 0 ? (
            <p className="px-2 py-1 text-slate-500">{t("tables.noSuggestions")}</p>
          ) : (
            items.map((item, index) => (
              <div
                key={item.value}
                id={`${listId}-${index}`}
                role="option"
                tabIndex={-1}
                aria-selected={index === active}
                data-testid="suggestion"
                data-value={item.value}
                title={item.label}
                // mousedown, not click: the input keeps focus, so its blur does not close the list first.
                onMouseDown={(e) => {
                  e.preventDefault();
                  pick(item.value);
                }}
                className={`cursor-pointer truncate px-2 py-1 ${index === active ? "bg-indigo-100 dark:bg-indigo-900" : "hover:bg-slate-100 dark:hover:bg-slate-800"}`}
              >
                {item.label}
              </div>
            ))
          )}
        </div>
      )}
    </div>
  );
}
