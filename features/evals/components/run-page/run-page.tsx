"use client";

import Link from "next/link";
import { useEffect, useId, useMemo, useRef, useState } from "react";
import { BUTTON, CARD, DateText, ErrorNote, Pill } from "@/components/admin-kit/ui";
import { useI18n } from "@/components/i18n";
import { scorerSummary } from "@/features/evals/scorer-drafts";
import { toApiError } from "@/lib/client/api";
import type { MessageKey } from "@/lib/i18n/messages";
import { datasetHref, evalsApi, runExportHref } from "../../client";
import { chartPoints, compareItems } from "../../compare";
import type { RunStatus } from "../../contracts";
import { PassCostChart } from "../run-chart";
import { Comparison } from "./comparison";
import { ItemTable } from "./item-table";
import { Progress } from "./progress";
import { useRun } from "./use-run";

const STATUS_TONE: Record<RunStatus, "green" | "slate" | "indigo" | "amber"> = {
  queued: "slate",
  running: "indigo",
  done: "green",
  cancelled: "amber",
  failed: "amber",
  budget: "amber",
};

/** A run: live progress while it runs, then the comparison per target, the chart, and every item side by side. */
export function RunPage({ id }: { id: string }) {
  const { t } = useI18n();
  const { view, error, reload } = useRun(id);
  const [cancelling, setCancelling] = useState(false);
  const [cancelError, setCancelError] = useState<string | null>(null);
  const tableId = useId();
  const rows = useMemo(() => (view ? compareItems(view) : []), [view]);
  const points = useMemo(() => (view ? chartPoints(view.targets) : []), [view]);
  const mounted = useRef(true);
  useEffect(
    () => () => {
      mounted.current = false;
    },
    [],
  );

  if (!view)
    return error ? (
      error.status === 404 ? (
        <p data-testid="run-not-found">{t("evals.runNotFound")}</p>
      ) : (
        <ErrorNote message={error.message} />
      )
    ) : (
      <p className="text-sm text-slate-500">{t("evals.loading")}</p>
    );

  const cancel = async () => {
    setCancelling(true);
    setCancelError(null);
    try {
      await evalsApi.cancel(id);
      reload();
    } catch (e) {
      setCancelError(toApiError(e).message);
    } finally {
      if (mounted.current) setCancelling(false);
    }
  };

  return (
    <div data-testid="run-page" data-status={view.status} className="min-w-0 space-y-6">
      <header className="space-y-2">
        <Link
          href="/dev/agent/evals"
          className="text-sm text-indigo-600 hover:underline dark:text-indigo-400"
        >
          ← {t("evals.back")}
        </Link>
        <div className="flex flex-wrap items-baseline gap-x-3 gap-y-1">
          <h1 className="text-2xl font-bold break-words">
            {view.name ?? t("evals.runOf", { dataset: view.datasetName })}
          </h1>
          <span data-testid="run-status" data-status={view.status}>
            <Pill tone={STATUS_TONE[view.status]}>{t(`evals.status.${view.status}` as MessageKey)}</Pill>
          </span>
          <a data-testid="run-export" href={runExportHref(view.id)} className={`${BUTTON} ml-auto`} download>
            {t("evals.exportCsv")}
          </a>
        </div>
        <p className="text-sm text-slate-600 dark:text-slate-300">
          {t("evals.dataset")}:{" "}
          <Link
            href={datasetHref(view.datasetId)}
            className="text-indigo-600 hover:underline dark:text-indigo-400"
          >
            {view.datasetName}
          </Link>{" "}
          · {t("evals.concurrency")}: {view.concurrency} · {t("evals.created")}:{" "}
          <DateText value={view.createdAt} fallback="—" />
        </p>
        <p className="text-xs text-slate-500" data-testid="run-scorers">
          {t("evals.scorers")}: {view.scorers.map((s) => scorerSummary(s)).join(" · ") || "—"}
        </p>
        {view.error && <ErrorNote message={view.error} testId="run-error" />}
        {error && <ErrorNote message={error.message} testId="run-poll-error" />}
        {cancelError && <ErrorNote message={cancelError} testId="run-cancel-error" />}
      </header>
      <Progress view={view} onCancel={cancel} cancelling={cancelling} />
      <section className="min-w-0 space-y-2" aria-labelledby="run-compare-title">
        <h2 id="run-compare-title" className="text-lg font-semibold">
          {t("evals.comparison")}
        </h2>
        <div className="min-w-0 space-y-4">
          <Comparison targets={view.targets} tableId={tableId} />
          {points.length > 0 && (
            <div className={`${CARD} max-w-3xl min-w-0 p-3`}>
              <h3 className="text-sm font-medium">{t("evals.chartTitle")}</h3>
              <PassCostChart points={points} describedBy={tableId} />
            </div>
          )}
        </div>
      </section>
      <ItemTable runId={view.id} rows={rows} targets={view.targets} />
    </div>
  );
}
