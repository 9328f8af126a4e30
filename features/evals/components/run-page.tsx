"use client";

import Link from "next/link";
import { useEffect, useId, useMemo, useRef, useState } from "react";
import { BUTTON, CARD, DANGER, DateText, ErrorNote, Pill } from "@/components/admin-kit/ui";
import { useI18n } from "@/components/i18n";
import { Money } from "@/components/ui/money";
import { formatDuration } from "@/features/admin-tables/components";
import { AskAssistantButton, shortId } from "@/features/drawer/components";
import { type ApiError, isAbort, toApiError } from "@/lib/client/api";
import type { MessageKey } from "@/lib/i18n/messages";
import { datasetHref, evalsApi, runExportHref } from "../client";
import {
  type ComparedRow,
  chartPoints,
  compareItems,
  formatEta,
  isLive,
  markDifferences,
  targetLabel,
} from "../compare";
import type { RunItemView, RunStatus, RunView, TargetSummary } from "../contracts";
import { expectedSummary, inputSummary } from "../import";
import { scorerSummary } from "../scorer-drafts";
import { PassCostChart } from "./run-chart";

const POLL_MS = 1000;
const TH = "px-3 py-2 font-medium whitespace-nowrap";
const TD = "px-3 py-2 tabular-nums whitespace-nowrap";

const STATUS_TONE: Record<RunStatus, "green" | "slate" | "indigo" | "amber"> = {
  queued: "slate",
  running: "indigo",
  done: "green",
  cancelled: "amber",
  failed: "amber",
  budget: "amber",
};

/** The run, polled every second while it is queued or running; stops polling once it has ended. */
function useRun(id: string) {
  const [view, setView] = useState<RunView | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    void tick;
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const load = () =>
      evalsApi.run(id, controller.signal).then(
        (next) => {
          setView(next);
          setError(null);
          if (isLive(next.status)) timer = setTimeout(load, POLL_MS);
        },
        (e: unknown) => {
          if (isAbort(e)) return;
          const failure = toApiError(e);
          setError(failure);
          // A passing network failure: try again; a refusal (404, 403) stays said.
          if (failure.status === 0 || failure.status >= 500) timer = setTimeout(load, POLL_MS * 3);
        },
      );
    void load();
    return () => {
      controller.abort();
      if (timer) clearTimeout(timer);
    };
  }, [id, tick]);
  return { view, error, reload: () => setTick((n) => n + 1) };
}

const percent = (rate: number | null) => (rate === null ? "—" : `${Math.round(rate * 1000) / 10}%`);
const score = (s: number | null) => (s === null ? "—" : s.toFixed(2));
const ms = (v: number | null) => (v === null ? "—" : formatDuration(v));

function Progress({
  view,
  onCancel,
  cancelling,
}: {
  view: RunView;
  onCancel: () => void;
  cancelling: boolean;
}) {
  const { t } = useI18n();
  const { done, total, passed, cost, etaSeconds } = view.progress;
  const live = isLive(view.status);
  const pct = total ? Math.round((done / total) * 100) : 0;
  return (
    <section data-testid="run-progress" className={`${CARD} space-y-3 p-4`} aria-live="polite">
      <div className="flex flex-wrap items-center gap-3">
        <div
          role="progressbar"
          aria-label={t("evals.progress")}
          aria-valuemin={0}
          aria-valuemax={total}
          aria-valuenow={done}
          className="h-2 min-w-40 flex-1 overflow-hidden rounded-full bg-slate-200 dark:bg-slate-800"
        >
          <div
            className={`h-full ${live ? "bg-indigo-500" : view.status === "done" ? "bg-emerald-500" : "bg-amber-500"}`}
            style={{ width: `${pct}%` }}
          />
        </div>
        {live && (
          <button
            type="button"
            data-testid="run-cancel"
            disabled={cancelling}
            onClick={onCancel}
            className={DANGER}
          >
            {cancelling ? t("evals.cancelling") : t("evals.cancelRun")}
          </button>
        )}
      </div>
      <dl className="grid grid-cols-2 gap-x-4 gap-y-2 text-sm sm:grid-cols-4">
        <div>
          <dt className="text-xs text-slate-500">{t("evals.itemsDone")}</dt>
          <dd data-testid="progress-done" data-done={done} data-total={total} className="tabular-nums">
            {t("evals.doneOf", { done: String(done), total: String(total) })}
          </dd>
        </div>
        <div>
          <dt className="text-xs text-slate-500">{t("evals.passesSoFar")}</dt>
          <dd data-testid="progress-passed" className="tabular-nums">
            {passed}
          </dd>
        </div>
        <div>
          <dt className="text-xs text-slate-500">{t("evals.costSoFar")}</dt>
          <dd>
            <Money value={cost} testId="progress-cost" />
          </dd>
        </div>
        <div>
          <dt className="text-xs text-slate-500">{t("evals.timeLeft")}</dt>
          <dd data-testid="progress-eta" className="tabular-nums">
            {live ? (etaSeconds === null ? t("evals.estimating") : formatEta(etaSeconds)) : "—"}
          </dd>
        </div>
      </dl>
    </section>
  );
}

function Comparison({ targets, tableId }: { targets: TargetSummary[]; tableId: string }) {
  const { t } = useI18n();
  return (
    <div className={`${CARD} overflow-x-auto`}>
      <table id={tableId} data-testid="run-comparison" className="w-full text-left text-sm">
        <caption className="sr-only">{t("evals.comparison")}</caption>
        <thead className="bg-slate-50 text-xs text-slate-600 dark:bg-slate-900 dark:text-slate-400">
          <tr>
            <th className={TH}>{t("evals.target")}</th>
            <th className={`${TH} text-right`}>{t("evals.passRate")}</th>
            <th className={`${TH} text-right`}>{t("evals.meanScore")}</th>
            <th className={`${TH} text-right`}>{t("evals.totalCost")}</th>
            <th className={`${TH} text-right`}>{t("evals.costPerPass")}</th>
            <th className={`${TH} text-right`}>p50</th>
            <th className={`${TH} text-right`}>p95</th>
            <th className={`${TH} text-right`}>{t("evals.failures")}</th>
            <th className={`${TH} text-right`}>{t("evals.passedOfDone")}</th>
          </tr>
        </thead>
        <tbody>
          {targets.map((target) => (
            <tr
              key={target.index}
              data-testid="target-summary"
              data-target={targetLabel(target)}
              className="border-t border-slate-100 dark:border-slate-800"
            >
              <th scope="row" className="px-3 py-2 text-left font-mono text-xs font-medium whitespace-nowrap">
                {targetLabel(target)}
              </th>
              <td data-testid="target-pass-rate" className={`${TD} text-right font-semibold`}>
                {percent(target.passRate)}
              </td>
              <td className={`${TD} text-right`}>{score(target.meanScore)}</td>
              <td className={`${TD} text-right`}>
                <Money value={target.cost} />
              </td>
              <td className={`${TD} text-right`}>
                <Money value={target.costPerPass} empty="—" />
              </td>
              <td className={`${TD} text-right`}>{ms(target.p50LatencyMs)}</td>
              <td className={`${TD} text-right`}>{ms(target.p95LatencyMs)}</td>
              <td className={`${TD} text-right ${target.failures ? "text-red-700 dark:text-red-300" : ""}`}>
                {target.failures}
              </td>
              <td className={`${TD} text-right`}>
                {target.passed}/{target.done}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Verdict({ cell }: { cell: RunItemView }) {
  const { t } = useI18n();
  if (cell.status === "failed" || cell.error) return <Pill tone="amber">{t("evals.verdict.error")}</Pill>;
  if (cell.passed === null)
    return <Pill tone="slate">{t(`evals.itemStatus.${cell.status}` as MessageKey)}</Pill>;
  return cell.passed ? (
    <Pill tone="green" testId="verdict-pass">
      {t("evals.verdict.pass")}
    </Pill>
  ) : (
    <span
      data-testid="verdict-fail"
      className="inline-block rounded-full bg-red-100 px-2 py-0.5 text-xs font-medium text-red-800 dark:bg-red-900/50 dark:text-red-200"
    >
      {t("evals.verdict.fail")}
    </span>
  );
}

/** One target's result for one item: verdict, score, latency, cost, replay link, the output, each scorer's reason. */
function OutputBody({
  runId,
  cell,
  reference,
}: {
  runId: string;
  cell: RunItemView;
  reference: string | null;
}) {
  const { t } = useI18n();
  const words = cell.output === null ? null : markDifferences(cell.output, reference);
  return (
    <>
      <div className="flex flex-wrap items-center gap-2 text-xs">
        <Verdict cell={cell} />
        {cell.score !== null && <span className="tabular-nums">{score(cell.score)}</span>}
        {cell.latencyMs !== null && <span className="text-slate-500 tabular-nums">{ms(cell.latencyMs)}</span>}
        {cell.cost !== null && <Money value={cell.cost} className="text-slate-500" />}
        {cell.turnId && (
          <Link
            href={`/dev/agent/audit/${cell.turnId}`}
            className="text-indigo-600 hover:underline dark:text-indigo-400"
          >
            {t("evals.replay")}
          </Link>
        )}
        <AskAssistantButton
          item={{
            type: "eval_item",
            // The run page's own name for an item's result: run, dataset item, target.
            id: `${runId}:${cell.itemId}:${cell.targetIndex}`,
            label: t("context.label.eval_item", { id: `${shortId(cell.itemId)} #${cell.targetIndex + 1}` }),
          }}
          className="inline-flex items-center gap-1 text-indigo-600 hover:underline focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-indigo-400"
        />
      </div>
      {cell.error && <p className="mt-1 text-xs break-words text-red-700 dark:text-red-300">{cell.error}</p>}
      {words && (
        <p className="mt-1 line-clamp-6 text-sm break-words whitespace-pre-wrap">
          {words.map((w, i) =>
            w.changed ? (
              <mark
                // biome-ignore lint/suspicious/noArrayIndexKey: pieces of one fixed text
                key={i}
                data-testid="output-diff"
                title={t("evals.differs")}
                className="rounded bg-amber-200/70 text-inherit dark:bg-amber-700/50"
              >
                {w.text}
              </mark>
            ) : (
              // biome-ignore lint/suspicious/noArrayIndexKey: pieces of one fixed text
              <span key={i}>{w.text}</span>
            ),
          )}
        </p>
      )}
      {cell.scores && cell.scores.length > 0 && (
        <ul className="mt-1 space-y-0.5 text-xs text-slate-600 dark:text-slate-400">
          {cell.scores.map((s, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: a cell's scores in the run's scorer order
            <li key={i} data-testid="item-score" data-passed={s.passed}>
              <span
                className={
                  s.passed ? "text-emerald-700 dark:text-emerald-300" : "text-red-700 dark:text-red-300"
                }
              >
                {s.passed ? "✓" : "✗"}
              </span>{" "}
              <span className="font-mono">{s.type}</span> {score(s.score)} — {s.reason}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

function OutputCell({
  runId,
  cell,
  reference,
}: {
  runId: string;
  cell: RunItemView | null;
  reference: string | null;
}) {
  if (!cell) return <td className="px-3 py-2 text-slate-400">—</td>;
  return (
    <td
      data-testid="item-output"
      data-target-index={cell.targetIndex}
      className="min-w-56 px-3 py-2 align-top"
    >
      <OutputBody runId={runId} cell={cell} reference={reference} />
    </td>
  );
}

/** An item on a narrow screen: its input and expected output, then each target's result under the other. */
function ItemCard({ runId, row, targets }: { runId: string; row: ComparedRow; targets: TargetSummary[] }) {
  const { t } = useI18n();
  const reference = row.cells[0]?.output ?? null;
  return (
    <li
      data-testid="run-item-card"
      data-disagree={row.disagree}
      className={`space-y-2 p-3 ${row.disagree ? "bg-amber-50/60 dark:bg-amber-950/20" : ""}`}
    >
      <p className="text-sm font-medium break-words">{inputSummary(row.input)}</p>
      <p className="text-xs text-slate-500">
        {t("evals.expected")}: {expectedSummary(row.expected) || "—"}
      </p>
      {row.cells.map((cell, i) => (
        <div
          // biome-ignore lint/suspicious/noArrayIndexKey: one cell per target index
          key={i}
          className="border-l-2 border-slate-200 pl-2 dark:border-slate-700"
        >
          <p className="font-mono text-xs text-slate-500">{targets[i] ? targetLabel(targets[i]) : i}</p>
          {cell ? <OutputBody runId={runId} cell={cell} reference={i === 0 ? null : reference} /> : "—"}
        </div>
      ))}
    </li>
  );
}

function ItemTable({
  runId,
  rows,
  targets,
}: {
  runId: string;
  rows: ComparedRow[];
  targets: TargetSummary[];
}) {
  const { t } = useI18n();
  const [onlyDisagree, setOnlyDisagree] = useState(false);
  const shown = onlyDisagree ? rows.filter((r) => r.disagree) : rows;
  const disagreeing = rows.filter((r) => r.disagree).length;
  return (
    <section className="min-w-0 space-y-2" aria-labelledby="run-items-title">
      <div className="flex flex-wrap items-center gap-3">
        <h2 id="run-items-title" className="text-lg font-semibold">
          {t("evals.items")}
        </h2>
        {targets.length > 1 && (
          <label className="flex items-center gap-2 text-sm">
            <input
              type="checkbox"
              data-testid="only-disagree"
              checked={onlyDisagree}
              onChange={(e) => setOnlyDisagree(e.target.checked)}
            />
            {t("evals.onlyDisagree", { n: String(disagreeing) })}
          </label>
        )}
      </div>
      {targets.length > 1 && <p className="text-xs text-slate-500">{t("evals.diffHint")}</p>}
      <ul
        className={`${CARD} divide-y divide-slate-100 md:hidden dark:divide-slate-800`}
        data-testid="run-item-cards"
      >
        {shown.length === 0 && (
          <li className="px-3 py-4 text-center text-sm text-slate-500">
            {onlyDisagree ? t("evals.noDisagreement") : t("evals.noItems")}
          </li>
        )}
        {shown.map((row) => (
          <ItemCard key={row.itemId} runId={runId} row={row} targets={targets} />
        ))}
      </ul>
      <div className={`${CARD} hidden overflow-x-auto md:block`}>
        <table data-testid="run-items" className="w-full text-left text-sm">
          <thead className="bg-slate-50 text-xs text-slate-600 dark:bg-slate-900 dark:text-slate-400">
            <tr>
              <th className={TH}>{t("evals.input")}</th>
              <th className={TH}>{t("evals.expected")}</th>
              {targets.map((target) => (
                <th key={target.index} className={`${TH} font-mono`}>
                  {targetLabel(target)}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {shown.length === 0 && (
              <tr>
                <td colSpan={2 + targets.length} className="px-3 py-4 text-center text-slate-500">
                  {onlyDisagree ? t("evals.noDisagreement") : t("evals.noItems")}
                </td>
              </tr>
            )}
            {shown.map((row) => {
              const reference = row.cells[0]?.output ?? null;
              return (
                <tr
                  key={row.itemId}
                  data-testid="run-item"
                  data-disagree={row.disagree}
                  className={`border-t border-slate-100 align-top dark:border-slate-800 ${row.disagree ? "bg-amber-50/60 dark:bg-amber-950/20" : ""}`}
                >
                  <td className="max-w-64 px-3 py-2">
                    <span className="line-clamp-4 break-words">{inputSummary(row.input)}</span>
                  </td>
                  <td className="max-w-48 px-3 py-2">
                    <span className="line-clamp-4 break-words">{expectedSummary(row.expected) || "—"}</span>
                  </td>
                  {row.cells.map((cell, i) => (
                    <OutputCell
                      runId={runId}
                      // biome-ignore lint/suspicious/noArrayIndexKey: one cell per target index
                      key={i}
                      cell={cell}
                      reference={i === 0 ? null : reference}
                    />
                  ))}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
}

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
