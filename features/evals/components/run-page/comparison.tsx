"use client";

import { CARD } from "@/components/admin-kit/ui";
import { useI18n } from "@/components/i18n";
import { Money } from "@/components/ui/money";
import { targetLabel } from "../../compare";
import type { TargetSummary } from "../../contracts";
import { formatLatency, formatRate, formatScore, HEAD_CELL, NUMBER_CELL } from "./format";

/** One row per target: pass rate, mean score, cost (per pass too), latency percentiles and failures. */
export function Comparison({ targets, tableId }: { targets: TargetSummary[]; tableId: string }) {
  const { t } = useI18n();
  return (
    <div className={`${CARD} overflow-x-auto`}>
      <table id={tableId} data-testid="run-comparison" className="w-full text-left text-sm">
        <caption className="sr-only">{t("evals.comparison")}</caption>
        <thead className="bg-slate-50 text-xs text-slate-600 dark:bg-slate-900 dark:text-slate-400">
          <tr>
            <th className={HEAD_CELL}>{t("evals.target")}</th>
            <th className={`${HEAD_CELL} text-right`}>{t("evals.passRate")}</th>
            <th className={`${HEAD_CELL} text-right`}>{t("evals.meanScore")}</th>
            <th className={`${HEAD_CELL} text-right`}>{t("evals.totalCost")}</th>
            <th className={`${HEAD_CELL} text-right`}>{t("evals.costPerPass")}</th>
            <th className={`${HEAD_CELL} text-right`}>p50</th>
            <th className={`${HEAD_CELL} text-right`}>p95</th>
            <th className={`${HEAD_CELL} text-right`}>{t("evals.failures")}</th>
            <th className={`${HEAD_CELL} text-right`}>{t("evals.passedOfDone")}</th>
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
              <td data-testid="target-pass-rate" className={`${NUMBER_CELL} text-right font-semibold`}>
                {formatRate(target.passRate)}
              </td>
              <td className={`${NUMBER_CELL} text-right`}>{formatScore(target.meanScore)}</td>
              <td className={`${NUMBER_CELL} text-right`}>
                <Money value={target.cost} />
              </td>
              <td className={`${NUMBER_CELL} text-right`}>
                <Money value={target.costPerPass} empty="—" />
              </td>
              <td className={`${NUMBER_CELL} text-right`}>{formatLatency(target.p50LatencyMs)}</td>
              <td className={`${NUMBER_CELL} text-right`}>{formatLatency(target.p95LatencyMs)}</td>
              <td
                className={`${NUMBER_CELL} text-right ${target.failures ? "text-red-700 dark:text-red-300" : ""}`}
              >
                {target.failures}
              </td>
              <td className={`${NUMBER_CELL} text-right`}>
                {target.passed}/{target.done}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
