"use client";

import {
  CartesianGrid,
  LabelList,
  ResponsiveContainer,
  Scatter,
  ScatterChart,
  Tooltip,
  type TooltipContentProps,
  type TooltipValueType,
  XAxis,
  YAxis,
  ZAxis,
} from "recharts";
import { useI18n } from "@/components/i18n";
import { formatMoney } from "@/lib/core/format/money";
import type { ChartPoint } from "../compare";

const COLOR = "#6366f1";

function PointTooltip({ active, payload }: TooltipContentProps<TooltipValueType, string | number>) {
  const { t, locale } = useI18n();
  const point = payload?.[0]?.payload as ChartPoint | undefined;
  if (!active || !point) return null;
  return (
    <div className="rounded-md border border-slate-200 bg-white px-2 py-1 text-xs text-slate-900 shadow dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100">
      <p className="font-semibold">{point.label}</p>
      <p className="tabular-nums">
        {t("evals.passRate")}: {point.passRate}%
      </p>
      <p className="tabular-nums">
        {t("evals.totalCost")}: {formatMoney(point.cost, { locale })}
      </p>
    </div>
  );
}

/**
 * Pass rate (up) against total cost (right), one labelled point per target: the best targets sit top left. The
 * comparison table beside it (`describedBy`) holds the same numbers for screen readers.
 */
export function PassCostChart({ points, describedBy }: { points: ChartPoint[]; describedBy: string }) {
  const { t, locale } = useI18n();
  const axis = { stroke: "currentColor", tick: { fill: "currentColor", fontSize: 11 } };
  return (
    <figure
      data-testid="pass-cost-chart"
      aria-label={t("evals.chartTitle")}
      aria-describedby={describedBy}
      className="h-64 w-full min-w-0 text-slate-600 dark:text-slate-300"
    >
      <ResponsiveContainer width="100%" height="100%">
        <ScatterChart margin={{ top: 20, right: 48, bottom: 16, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="currentColor" strokeOpacity={0.2} />
          <XAxis
            type="number"
            dataKey="cost"
            name={t("evals.totalCost")}
            tickFormatter={(v: number) => formatMoney(v, { locale })}
            label={{
              value: t("evals.totalCost"),
              position: "insideBottom",
              offset: -8,
              fill: "currentColor",
              fontSize: 11,
            }}
            {...axis}
          />
          <YAxis
            type="number"
            dataKey="passRate"
            name={t("evals.passRate")}
            domain={[0, 100]}
            unit="%"
            width={48}
            {...axis}
          />
          <ZAxis range={[90, 90]} />
          <Tooltip content={(p) => <PointTooltip {...p} />} cursor={{ strokeDasharray: "3 3" }} />
          <Scatter data={points} fill={COLOR} isAnimationActive={false}>
            <LabelList dataKey="label" position="top" fill="currentColor" fontSize={11} />
          </Scatter>
        </ScatterChart>
      </ResponsiveContainer>
    </figure>
  );
}
