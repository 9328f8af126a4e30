"use client";

import { useMemo } from "react";
import { INPUT, LABEL } from "@/components/admin-kit/ui";
import { useI18n } from "@/components/i18n";
import { expectedSummary, type ImportFormat, inputSummary, type ParseResult, parseItems } from "../import";

const PREVIEW_ROWS = 50;

export type ImportState = { text: string; format: ImportFormat };

/** The items the paste makes, and the lines it does not, as the form shows them before saving. */
export const usePreview = (state: ImportState): ParseResult =>
  useMemo(() => parseItems(state.text, state.format), [state.text, state.format]);

/**
 * Items pasted as JSONL or CSV, with a preview table of what each line makes and the lines that make nothing,
 * each with its reason, before anything is saved.
 */
export function ImportItems(props: {
  id: string;
  state: ImportState;
  onChange: (state: ImportState) => void;
  preview: ParseResult;
}) {
  const { t } = useI18n();
  const { state, preview } = props;
  const textId = `${props.id}-items`;
  return (
    <div className="min-w-0 space-y-2">
      <div className="flex flex-wrap items-end gap-3">
        <label htmlFor={textId} className={LABEL}>
          {t("evals.items")}
        </label>
        <fieldset className="flex gap-3 text-sm">
          <legend className="sr-only">{t("evals.format")}</legend>
          {(["jsonl", "csv"] as const).map((format) => (
            <label key={format} className="flex items-center gap-1">
              <input
                type="radio"
                name={`${props.id}-format`}
                data-testid={`format-${format}`}
                checked={state.format === format}
                onChange={() => props.onChange({ ...state, format })}
              />
              {format === "jsonl" ? "JSONL" : "CSV"}
            </label>
          ))}
        </fieldset>
      </div>
      <textarea
        id={textId}
        data-testid={`${props.id}-items`}
        rows={6}
        value={state.text}
        spellCheck={false}
        onChange={(e) => props.onChange({ ...state, text: e.target.value })}
        placeholder={state.format === "jsonl" ? t("evals.jsonlPlaceholder") : t("evals.csvPlaceholder")}
        className={`font-mono text-xs ${INPUT}`}
        aria-describedby={`${textId}-hint`}
      />
      <p id={`${textId}-hint`} className="text-xs text-slate-500 dark:text-slate-400">
        {state.format === "jsonl" ? t("evals.jsonlHint") : t("evals.csvHint")}
      </p>
      {state.text.trim() && (
        <div data-testid={`${props.id}-preview`} className="min-w-0 space-y-2">
          <p className="text-sm" role="status">
            {t("evals.previewCount", {
              ok: String(preview.items.length),
              bad: String(preview.errors.length),
            })}
          </p>
          {preview.errors.length > 0 && (
            <ul
              data-testid="import-errors"
              className="max-h-40 list-inside list-disc overflow-y-auto rounded-md border border-red-300 bg-red-50 px-3 py-2 text-xs text-red-800 dark:border-red-900 dark:bg-red-950/40 dark:text-red-200"
            >
              {preview.errors.map((e) => (
                <li key={e.line} data-testid="import-error" data-line={e.line}>
                  {t("evals.lineError", { line: String(e.line), error: e.error })}
                </li>
              ))}
            </ul>
          )}
          {preview.lines.length > 0 && (
            <div className="max-h-64 overflow-auto rounded-md border border-slate-200 dark:border-slate-800">
              <table className="w-full text-left text-xs">
                <thead className="sticky top-0 bg-slate-50 dark:bg-slate-900">
                  <tr>
                    <th className="px-2 py-1 font-medium">{t("evals.line")}</th>
                    <th className="px-2 py-1 font-medium">{t("evals.input")}</th>
                    <th className="px-2 py-1 font-medium">{t("evals.expected")}</th>
                  </tr>
                </thead>
                <tbody>
                  {preview.lines.slice(0, PREVIEW_ROWS).map((l) => (
                    <tr
                      key={l.line}
                      data-testid="preview-row"
                      data-ok={"item" in l}
                      className={`border-t border-slate-100 align-top dark:border-slate-800 ${"item" in l ? "" : "bg-red-50 dark:bg-red-950/30"}`}
                    >
                      <td className="px-2 py-1 tabular-nums">{l.line}</td>
                      {"item" in l ? (
                        <>
                          <td className="max-w-xs truncate px-2 py-1" title={inputSummary(l.item.input)}>
                            {inputSummary(l.item.input)}
                          </td>
                          <td className="max-w-xs truncate px-2 py-1">{expectedSummary(l.item.expected)}</td>
                        </>
                      ) : (
                        <td colSpan={2} className="px-2 py-1 text-red-700 dark:text-red-300">
                          {l.error}
                        </td>
                      )}
                    </tr>
                  ))}
                </tbody>
              </table>
              {preview.lines.length > PREVIEW_ROWS && (
                <p className="px-2 py-1 text-xs text-slate-500">
                  {t("evals.previewMore", { n: String(preview.lines.length - PREVIEW_ROWS) })}
                </p>
              )}
            </div>
          )}
        </div>
      )}
    </div>
  );
}
