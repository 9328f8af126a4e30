"use client";

import { useEffect, useId, useRef } from "react";
import { useI18n } from "@/components/i18n";
import type { ColumnDef } from "@/features/admin-tables/contracts";
import { pick } from "./format";
import type { ColumnVisibility } from "./use-column-visibility";

const ICON =
  "h-7 w-7 shrink-0 rounded text-xs hover:bg-slate-100 disabled:cursor-not-allowed disabled:opacity-25 dark:hover:bg-slate-800";

/**
 * "Columns": a checkbox per column, buttons to move it up or down and to pin it to the left; the choice is remembered per viewer and page. A disclosure (details) so it
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

  const shownCount = visibility.visible.length;
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
        className="absolute right-0 z-30 mt-1 max-h-[70vh] w-72 max-w-[calc(100vw-1.5rem)] space-y-1 overflow-y-auto rounded-md border border-slate-200 bg-white p-3 text-sm shadow-lg dark:border-slate-700 dark:bg-slate-900"
      >
        <legend className="sr-only">{t("tables.columnsTitle")}</legend>
        <ol className="space-y-1">
          {visibility.ordered.map((column, index) => {
            const shown = visibility.isShown(column);
            const pinned = visibility.pinned.has(column.field);
            const label = pick(column.label, locale);
            const next = visibility.ordered[index + 1];
            const previous = visibility.ordered[index - 1];
            // A column moves within its group: the pinned ones, or the rest.
            const canUp = previous !== undefined && visibility.pinned.has(previous.field) === pinned;
            const canDown = next !== undefined && visibility.pinned.has(next.field) === pinned;
            return (
              <li
                key={column.field}
                data-testid={`column-row-${column.field}`}
                data-pinned={pinned || undefined}
                className="flex items-center gap-1"
              >
                <label className="flex min-w-0 flex-1 items-center gap-2">
                  <input
                    type="checkbox"
                    data-testid={`column-toggle-${column.field}`}
                    checked={shown}
                    disabled={shown && shownCount === 1}
                    onChange={() => visibility.toggle(column)}
                  />
                  <span className="truncate">{label}</span>
                </label>
                <button
                  type="button"
                  data-testid={`column-pin-${column.field}`}
                  aria-pressed={pinned}
                  aria-label={t(pinned ? "columns.unpin" : "columns.pin", { label })}
                  title={t(pinned ? "columns.unpin" : "columns.pin", { label })}
                  onClick={() => visibility.togglePin(column.field)}
                  className={`${ICON} ${pinned ? "bg-indigo-100 dark:bg-indigo-900/60" : "opacity-40 hover:opacity-100 focus:opacity-100"}`}
                >
                  <span aria-hidden="true">📌</span>
                </button>
                <button
                  type="button"
                  data-testid={`column-up-${column.field}`}
                  aria-label={t("columns.moveUp", { label })}
                  title={t("columns.moveUp", { label })}
                  disabled={!canUp}
                  onClick={() => visibility.move(column.field, -1)}
                  className={ICON}
                >
                  <span aria-hidden="true">↑</span>
                </button>
                <button
                  type="button"
                  data-testid={`column-down-${column.field}`}
                  aria-label={t("columns.moveDown", { label })}
                  title={t("columns.moveDown", { label })}
                  disabled={!canDown}
                  onClick={() => visibility.move(column.field, 1)}
                  className={ICON}
                >
                  <span aria-hidden="true">↓</span>
                </button>
              </li>
            );
          })}
        </ol>
        <p className="pt-1 text-xs text-slate-500 dark:text-slate-400">{t("columns.orderHint")}</p>
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
