"use client";

import { useState } from "react";
import {
  Bar,
  BarChart,
  CartesianGrid,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  type TooltipContentProps,
  type TooltipValueType,
  XAxis,
  YAxis,
} from "recharts";
import { useI18n } from "@/components/i18n";
import type { ChartDef, SeriesResult } from "@/features/admin-tables/contracts";
import type { MessageKey } from "@/lib/i18n/messages";
import { schemaUrl } from "./api";
import { ErrorNote } from "./error-note";
import { type ChartPoint, fitLabel, type PreparedChart, prepareChart } from "./prepare-chart";
import { useApi } from "./use-api";

const COLOR = "#6366f1"; // indigo-500 reads on both the light and the dark background

function ChartTooltip({ active, payload }: TooltipContentProps<TooltipValueType, string | number>) {
  const point = payload?.[0]?.payload as ChartPoint | undefined;
  if (!active || !point) return null;
  return (
    <div className="rounded-md border border-slate-200 bg-white px-2 py-1 text-xs text-slate-900 shadow dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100">
      <p className="text-slate-500 dark:text-slate-400">{point.label}</p>
      <p className="font-semibold tabular-nums">{point.display}</p>
      {point.exact && point.exact !== point.display && (
        <p data-testid="chart-tooltip-exact" className="text-slate-500 tabular-nums dark:text-slate-400">
          {point.exact}
        </p>
      )}
    </div>
  );
}

/** A bar's category label, cut to the room it has, whole on hover. */
function CategoryTick(props: { x?: number; y?: number; payload?: { value: string }; width: number }) {
  const label = props.payload?.value ?? "";
  return (
    <text
      x={props.x}
      y={props.y}
      dy={4}
      textAnchor="end"
      fill="currentColor"
      fontSize={11}
      data-testid="chart-bar-label"
    >
      <title>{label}</title>
      {fitLabel(label, props.width - 8)}
    </text>
  );
}

/** Visualise: renders a prepared chart and decides nothing. */
function ChartView({ chart }: { chart: PreparedChart }) {
  const axis = { stroke: "currentColor", tick: { fill: "currentColor", fontSize: 11 } };
  const tooltip = (
    <Tooltip content={(p) => <ChartTooltip {...p} />} cursor={{ fill: "currentColor", fillOpacity: 0.08 }} />
  );
  return (
    <ResponsiveContainer width="100%" height="100%">
      {chart.type === "bar" ? (
        // Horizontal bars: every label has a line of its own, however long, and reads without tilting the head.
        <BarChart data={chart.points} layout="vertical" margin={{ top: 4, right: 4, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="currentColor" strokeOpacity={0.2} horizontal={false} />
          <XAxis type="number" tickFormatter={chart.tick} {...axis} />
          <YAxis
            yAxisId="label"
            type="category"
            dataKey="label"
            interval={0}
            width={chart.labelWidth}
            stroke="currentColor"
            tick={<CategoryTick width={chart.labelWidth} />}
          />
          {/* Each bar's value in a column on the right: read like a table, and there for a zero too. */}
          <YAxis
            yAxisId="value"
            orientation="right"
            type="category"
            dataKey="display"
            interval={0}
            width={chart.valueWidth}
            axisLine={false}
            tickLine={false}
            tick={{ fill: "currentColor", fontSize: 11 }}
          />
          {tooltip}
          <Bar
            yAxisId="label"
            dataKey="value"
            fill={COLOR}
            radius={[0, 3, 3, 0]}
            maxBarSize={20}
            isAnimationActive={false}
          />
        </BarChart>
      ) : (
        <LineChart data={chart.points} margin={{ top: 8, right: 16, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="currentColor" strokeOpacity={0.2} vertical={false} />
          <XAxis dataKey="label" minTickGap={24} {...axis} />
          <YAxis tickFormatter={chart.tick} width={56} {...axis} />
          {tooltip}
          <Line
            dataKey="value"
            stroke={COLOR}
            strokeWidth={2}
            dot={chart.points.length <= 31}
            isAnimationActive={false}
          />
        </LineChart>
      )}
    </ResponsiveContainer>
  );
}

/** Grey bars where the chart will be: loading, not "no data". */
function ChartSkeleton({ type }: { type: ChartDef["type"] }) {
  const { t } = useI18n();
  return (
    <div data-testid="chart-skeleton" role="status" className="flex h-full flex-col justify-center gap-3">
      <span className="sr-only">{t("charts.loading")}</span>
      {type === "bar" ? (
        [92, 74, 55, 38, 20].map((w) => (
          <div key={w} className="flex items-center gap-2">
            <div className="h-3 w-16 animate-pulse rounded bg-slate-200 dark:bg-slate-800" />
            <div
              className="h-4 animate-pulse rounded bg-slate-200 dark:bg-slate-800"
              style={{ width: `${w * 0.75}%` }}
            />
          </div>
        ))
      ) : (
        <div className="h-full animate-pulse rounded bg-slate-100 dark:bg-slate-800/60" />
      )}
    </div>
  );
}

/** What an empty chart says: no data in the time range, for the filters, or at all yet. */
function emptyMessage(filterQuery: string): MessageKey {
  const filters = [...new URLSearchParams(filterQuery).keys()].filter((k) => k.startsWith("f."));
  if (filters.some((k) => /^f\..+\.(from|to)$/.test(k))) return "charts.emptyRange";
  return filters.length > 0 ? "charts.emptyFilters" : "charts.emptyAll";
}

function SchemaChart(props: { schemaKey: string; def: ChartDef; filterQuery: string }) {
  const { t, locale } = useI18n();
  const [asTable, setAsTable] = useState(false);
  const url = schemaUrl(props.schemaKey, "series", props.filterQuery, { chart: props.def.key });
  const { data, error, loading } = useApi<SeriesResult>(url);
  const chart = prepareChart(props.def, data, locale, t);
  const empty = !loading && data !== null && chart.points.length === 0;
  const tableId = `chart-table-${props.def.key}`;
  return (
    <figure
      data-testid="chart"
      data-chart-key={props.def.key}
      data-chart-type={props.def.type}
      data-granularity={chart.granularity ?? undefined}
      aria-busy={loading}
      className="min-w-0 rounded-lg border border-slate-200 bg-white p-3 dark:border-slate-800 dark:bg-slate-900"
    >
      <div className="mb-2 flex items-baseline gap-2">
        <figcaption className="text-sm font-medium">{chart.title}</figcaption>
        {chart.granularity && (
          <span data-testid="chart-granularity" className="text-xs text-slate-500 dark:text-slate-400">
            {t(`charts.granularity.${chart.granularity}`)}
          </span>
        )}
        {chart.points.length > 0 && (
          <button
            type="button"
            data-testid="chart-table-toggle"
            aria-expanded={asTable}
            aria-controls={tableId}
            onClick={() => setAsTable((v) => !v)}
            className="ml-auto rounded px-1.5 text-xs text-indigo-600 hover:underline dark:text-indigo-400"
          >
            {asTable ? t("charts.showChart") : t("charts.showTable")}
          </button>
        )}
      </div>
      {error ? (
        <ErrorNote message={error.message} />
      ) : (
        !asTable && (
          <div
            className={`relative text-slate-500 dark:text-slate-400 ${loading && data ? "opacity-60" : ""}`}
            style={{ height: data ? (empty ? 140 : chart.height) : 200 }}
          >
            {!data ? (
              <ChartSkeleton type={props.def.type} />
            ) : empty ? (
              <p
                data-testid="chart-empty"
                className="flex h-full items-center justify-center rounded-md border border-dashed border-slate-200 px-4 text-center text-sm dark:border-slate-700"
              >
                {t(emptyMessage(props.filterQuery))}
              </p>
            ) : (
              <ChartView chart={chart} />
            )}
          </div>
        )
      )}
      {/* The same numbers as a table: for screen readers always, on screen when asked for. */}
      <div className={asTable ? "max-h-80 overflow-auto" : "sr-only"}>
        <table id={tableId} data-testid="chart-table" className="w-full text-sm">
          <caption className="sr-only">{chart.title}</caption>
          <thead>
            <tr className="text-left text-xs text-slate-500 dark:text-slate-400">
              <th scope="col" className="py-1 font-medium">
                {chart.granularity ? t("charts.col.time") : t("charts.col.item")}
              </th>
              <th scope="col" className="py-1 text-right font-medium">
                {t("charts.col.value")}
              </th>
            </tr>
          </thead>
          <tbody>
            {chart.points.map((p) => (
              <tr key={p.key} className="border-t border-slate-100 dark:border-slate-800">
                <th scope="row" className="py-1 pr-3 text-left font-normal">
                  {p.label}
                </th>
                <td title={p.exact} className="py-1 text-right tabular-nums">
                  {p.display}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}

export function Charts(props: { schemaKey: string; charts: ChartDef[]; filterQuery: string }) {
  const { t } = useI18n();
  return (
    <section aria-label={t("schema.charts")} className="grid items-start gap-4 lg:grid-cols-2">
      {props.charts.map((def) => (
        <SchemaChart key={def.key} schemaKey={props.schemaKey} def={def} filterQuery={props.filterQuery} />
      ))}
    </section>
  );
}
