"use client";

import { useEffect, useId, useRef } from "react";
import { useI18n } from "@/components/i18n";
import type { ColumnDef } from "@/features/admin-tables/contracts";
import { pick } from "./format";
import type { ColumnVisibility } from "./use-column-visibility";

/**
 * "Columns": a checkbox per column; the choice is remembered per viewer and page. A disclosure (details) so it
 * works by keyboard without script tricks; a click outside or Escape closes it. The last shown column stays.
 */
export function ColumnPicker(props: {
  columns: ColumnDef[];
  visibility: ColumnVisibility;
  className: string;
}) {
  const { t, locale } = useI18n();
  const ref = useRef<HTMLDetailsElement>(null);
  const hintId = useId();
  const { visibility } = props;

  useEffect(() => {
    const close = (e: Event) => {
      const details = ref.current;
      if (!details?.open) return;
      if (e instanceof KeyboardEvent ? e.key === "Escape" : !details.contains(e.target as Node)) {
        details.open = false;
        if (e instanceof KeyboardEvent) details.querySelector("summary")?.focus();
      }
    };
    document.addEventListener("mousedown", close);
    document.addEventListener("keydown", close);
    return () => {
      document.removeEventListener("mousedown", close);
      document.removeEventListener("keydown", close);
    };
  }, []);

  const shownCount = props.columns.filter(visibility.isShown).length;
  return (
    <details ref={ref} data-testid="column-picker" className="relative">
      <summary
        data-testid="column-picker-toggle"
        title={t("tables.columnsTitle")}
        className={`${props.className} cursor-pointer list-none select-none`}
      >
        {t("tables.columns")}{" "}
        <span className="text-slate-500 tabular-nums">
          {shownCount}/{props.columns.length}
        </span>
      </summary>
      <fieldset
        aria-describedby={hintId}
        className="absolute right-0 z-30 mt-1 w-64 space-y-1 rounded-md border border-slate-200 bg-white p-3 text-sm shadow-lg dark:border-slate-700 dark:bg-slate-900"
      >
        <legend className="sr-only">{t("tables.columnsTitle")}</legend>
        {props.columns.map((column) => {
          const shown = visibility.isShown(column);
          return (
            <label key={column.field} className="flex items-center gap-2">
              <input
                type="checkbox"
                data-testid={`column-toggle-${column.field}`}
                checked={shown}
                disabled={shown && shownCount === 1}
                onChange={() => visibility.toggle(column)}
              />
              <span className="truncate">{pick(column.label, locale)}</span>
            </label>
          );
        })}
        <p id={hintId} className="pt-1 text-xs text-slate-500 dark:text-slate-400">
          {t("tables.columnsHint")}
        </p>
        {visibility.changed && (
          <button
            type="button"
            data-testid="column-picker-reset"
            onClick={visibility.reset}
            className="text-xs text-indigo-600 hover:underline dark:text-indigo-400"
          >
            {t("tables.columnsReset")}
          </button>
        )}
      </fieldset>
    </details>
  );
}
