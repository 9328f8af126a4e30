"use client";

import Link from "next/link";
import { useState } from "react";
import { BUTTON, CARD, DateText, ErrorNote, PRIMARY } from "@/components/admin-kit/ui";
import { useLoad } from "@/components/admin-kit/use-load";
import { useI18n } from "@/components/i18n";
import { JsonView } from "@/components/ui/json-view";
import { type ApiError, toApiError } from "@/lib/client/api";
import type { MessageKey } from "@/lib/i18n/messages";
import { type DatasetItemView, evalsApi, type RunListEntry, runHref } from "../client";
import { targetLabel } from "../compare";
import { expectedSummary, inputSummary } from "../import";
import { scorerSummary } from "../scorer-drafts";
import { ImportItems, type ImportState, usePreview } from "./import-items";
import { NewRun } from "./new-run";

/** The server's per-line messages ("items.3.input", "line 4") said as one line each, else its message. */
export function explainItemsError(error: ApiError): string[] {
  const entries = Object.entries(error.fields);
  return entries.length ? entries.map(([k, v]) => `${k}: ${v.join(" ")}`) : [error.message];
}

function AppendItems({ datasetId, onAdded }: { datasetId: string; onAdded: () => void }) {
  const { t } = useI18n();
  const [open, setOpen] = useState(false);
  const [paste, setPaste] = useState<ImportState>({ text: "", format: "jsonl" });
  const [saving, setSaving] = useState(false);
  const [errors, setErrors] = useState<string[]>([]);
  const [added, setAdded] = useState<number | null>(null);
  const preview = usePreview(paste);
  if (!open)
    return (
      <button type="button" data-testid="append-open" onClick={() => setOpen(true)} className={BUTTON}>
        {t("evals.appendItems")}
      </button>
    );
  const save = async () => {
    setSaving(true);
    setErrors([]);
    try {
      await evalsApi.appendItems(datasetId, preview.items);
      setAdded(preview.items.length);
      setPaste({ ...paste, text: "" });
      onAdded();
    } catch (error) {
      setErrors(explainItemsError(toApiError(error)));
    } finally {
      setSaving(false);
    }
  };
  return (
    <section data-testid="append-panel" className={`${CARD} min-w-0 basis-full space-y-3 p-4`}>
      <h2 className="font-semibold">{t("evals.appendItems")}</h2>
      <ImportItems id="append" state={paste} onChange={setPaste} preview={preview} />
      {errors.length > 0 && <ErrorNote message={errors.join(" · ")} testId="append-error" />}
      {added !== null && (
        <p role="status" data-testid="append-done" className="text-sm text-emerald-700 dark:text-emerald-300">
          ✓ {t("evals.appended", { n: String(added) })}
        </p>
      )}
      <div className="flex gap-2">
        <button
          type="button"
          data-testid="append-save"
          disabled={saving || preview.items.length === 0 || preview.errors.length > 0}
          onClick={save}
          className={PRIMARY}
        >
          {saving ? t("evals.saving") : t("evals.appendN", { n: String(preview.items.length) })}
        </button>
        <button type="button" onClick={() => setOpen(false)} className={BUTTON}>
          {t("evals.close")}
        </button>
      </div>
    </section>
  );
}

function ItemRow({ item }: { item: DatasetItemView }) {
  const { t } = useI18n();
  const [open, setOpen] = useState(false);
  const meta = item.metadata && Object.keys(item.metadata).length ? item.metadata : null;
  return (
    <>
      <tr data-testid="dataset-item" className="border-t border-slate-100 align-top dark:border-slate-800">
        <td className="px-3 py-2">
          <button
            type="button"
            aria-expanded={open}
            onClick={() => setOpen(!open)}
            className="text-left text-indigo-700 hover:underline dark:text-indigo-300"
            title={t("evals.showItem")}
          >
            <span className="line-clamp-2 break-words">{inputSummary(item.input) || "—"}</span>
          </button>
        </td>
        <td className="px-3 py-2">
          <span className="line-clamp-2 break-words">{expectedSummary(item.expected) || "—"}</span>
        </td>
        <td className="hidden px-3 py-2 font-mono text-xs md:table-cell">
          <span className="line-clamp-2 break-all">{meta ? JSON.stringify(meta) : "—"}</span>
        </td>
        <td className="px-3 py-2 text-xs whitespace-nowrap text-slate-500">
          <DateText value={item.updatedAt} fallback="—" />
          {item.sourceTurnId && (
            <Link
              href={`/dev/agent/audit/${item.sourceTurnId}`}
              className="block text-indigo-600 hover:underline dark:text-indigo-400"
            >
              {t("evals.fromTurn")}
            </Link>
          )}
        </td>
      </tr>
      {open && (
        <tr className="bg-slate-50 dark:bg-slate-900/60">
          <td colSpan={4} className="space-y-2 px-3 py-2">
            <JsonView
              value={{ input: item.input, expected: item.expected ?? null, metadata: item.metadata ?? {} }}
            />
          </td>
        </tr>
      )}
    </>
  );
}

function DatasetRuns({ runs }: { runs: RunListEntry[] }) {
  const { t } = useI18n();
  return (
    <section className="min-w-0 space-y-2" aria-labelledby="dataset-runs-title">
      <h2 id="dataset-runs-title" className="text-lg font-semibold">
        {t("evals.runsCount", { n: String(runs.length) })}
      </h2>
      <ul className={`${CARD} divide-y divide-slate-100 dark:divide-slate-800`} data-testid="dataset-runs">
        {runs.map((run) => (
          <li key={run.id} className="flex flex-wrap items-baseline gap-x-3 gap-y-1 px-3 py-2 text-sm">
            <Link
              href={runHref(run.id)}
              className="font-medium text-indigo-700 hover:underline dark:text-indigo-300"
            >
              {run.name ?? t("evals.runOf", { dataset: run.datasetName })}
            </Link>
            <span className="text-xs text-slate-500">{t(`evals.status.${run.status}` as MessageKey)}</span>
            <span className="text-xs text-slate-500">
              <DateText value={run.createdAt} fallback="—" />
            </span>
            <span className="flex flex-wrap gap-2 text-xs">
              {run.targets.map((target) => (
                <span key={target.index} className="font-mono">
                  {targetLabel(target)}{" "}
                  <b className="tabular-nums">
                    {target.passRate === null ? "—" : `${Math.round(target.passRate * 1000) / 10}%`}
                  </b>
                </span>
              ))}
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** One dataset: its default scorers, its items (each opens to its whole JSON), appending items, starting a run. */
export function DatasetPage({ id }: { id: string }) {
  const { t } = useI18n();
  const { data, error, reload } = useLoad((signal) => evalsApi.dataset(id, signal));
  if (error)
    return error.status === 404 ? (
      <p data-testid="dataset-not-found">{t("evals.datasetNotFound")}</p>
    ) : (
      <ErrorNote message={error.message} />
    );
  if (!data) return <p className="text-sm text-slate-500">{t("evals.loading")}</p>;
  return (
    <div data-testid="dataset-page" data-dataset-id={data.id} className="min-w-0 space-y-6">
      <header className="space-y-2">
        <Link
          href="/dev/agent/evals"
          className="text-sm text-indigo-600 hover:underline dark:text-indigo-400"
        >
          ← {t("evals.back")}
        </Link>
        <h1 data-testid="dataset-name" className="text-2xl font-bold break-words">
          {data.name}
        </h1>
        {data.description && <p className="text-slate-600 dark:text-slate-300">{data.description}</p>}
        <p className="text-sm text-slate-500" data-testid="dataset-scorers">
          {t("evals.defaultScorers")}:{" "}
          {data.scorers.length
            ? data.scorers.map((s) => scorerSummary(s)).join(" · ")
            : t("evals.noDefaultScorers")}
        </p>
      </header>
      <div className="flex flex-wrap items-start gap-2">
        <NewRun datasetId={data.id} />
        <AppendItems datasetId={data.id} onAdded={reload} />
      </div>
      <section className="min-w-0 space-y-2">
        <h2 className="text-lg font-semibold">{t("evals.itemsCount", { n: String(data.items.length) })}</h2>
        {data.items.length === 0 ? (
          <p className="text-sm text-slate-500">{t("evals.noItems")}</p>
        ) : (
          <div className={`${CARD} overflow-x-auto`}>
            <table className="w-full text-left text-sm" data-testid="dataset-items">
              <thead className="bg-slate-50 text-xs text-slate-600 dark:bg-slate-900 dark:text-slate-400">
                <tr>
                  <th className="px-3 py-2 font-medium">{t("evals.input")}</th>
                  <th className="px-3 py-2 font-medium">{t("evals.expected")}</th>
                  <th className="hidden px-3 py-2 font-medium md:table-cell">{t("evals.metadata")}</th>
                  <th className="px-3 py-2 font-medium">{t("evals.updated")}</th>
                </tr>
              </thead>
              <tbody>
                {data.items.map((item) => (
                  <ItemRow key={item.id} item={item} />
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      {data.runs && data.runs.length > 0 && <DatasetRuns runs={data.runs} />}
    </div>
  );
}
