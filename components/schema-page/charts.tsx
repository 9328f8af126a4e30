"use client";

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
import { exactMoney } from "@/lib/core/money-format";
import type { Locale } from "@/lib/i18n/messages";
import type { ChartDef } from "@/lib/schema-pages/types";
import { type Series, schemaUrl } from "./api";
import { ErrorNote } from "./error-note";
import { formatMeasure, formatTick, pick, toNumber } from "./format";
import { useApi } from "./use-api";

/** `exact`: the server's amount to the last decimal, for money whose display is rounded. */
type ChartPoint = { label: string; value: number; display: string; exact?: string };
type PreparedChart = {
  title: string;
  type: ChartDef["type"];
  points: ChartPoint[];
  tick: (n: number) => string;
};

/**
 * Prepare: every data and formatting decision. Numbers exist only for the geometry; what people read
 * (tooltips, the screen-reader table) is the server's value formatted as every page formats it, and money
 * also to its last decimal.
 */
export function prepareChart(def: ChartDef, series: Series["points"], locale: Locale): PreparedChart {
  return {
    title: pick(def.title, locale),
    type: def.type,
    points: series.map((p) => {
      const value = toNumber(p.value);
      return {
        label: p.label,
        value: Number.isNaN(value) ? 0 : value,
        display: formatMeasure(def.format, p.value, locale),
        exact: def.format === "money" ? exactMoney(p.value) : undefined,
      };
    }),
    tick: (n) => formatTick(def.format, n, locale),
  };
}

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

/** Visualise: renders a prepared chart and decides nothing. */
function ChartView({ chart }: { chart: PreparedChart }) {
  const axis = { stroke: "currentColor", tick: { fill: "currentColor", fontSize: 11 } };
  const grid = (
    <CartesianGrid strokeDasharray="3 3" stroke="currentColor" strokeOpacity={0.2} vertical={false} />
  );
  const tooltip = (
    <Tooltip content={(p) => <ChartTooltip {...p} />} cursor={{ fill: "currentColor", fillOpacity: 0.08 }} />
  );
  const margin = { top: 8, right: 8, bottom: 0, left: 0 };
  return (
    <ResponsiveContainer width="100%" height="100%">
      {chart.type === "bar" ? (
        <BarChart data={chart.points} margin={margin}>
          {grid}
          <XAxis dataKey="label" {...axis} />
          <YAxis tickFormatter={chart.tick} width={56} {...axis} />
          {tooltip}
          <Bar dataKey="value" fill={COLOR} radius={[3, 3, 0, 0]} isAnimationActive={false} />
        </BarChart>
      ) : (
        <LineChart data={chart.points} margin={margin}>
          {grid}
          <XAxis dataKey="label" {...axis} />
          <YAxis tickFormatter={chart.tick} width={56} {...axis} />
          {tooltip}
          <Line dataKey="value" stroke={COLOR} strokeWidth={2} dot={false} isAnimationActive={false} />
        </LineChart>
      )}
    </ResponsiveContainer>
  );
}

function SchemaChart(props: { schemaKey: string; def: ChartDef; filterQuery: string }) {
  const { t, locale } = useI18n();
  const url = schemaUrl(props.schemaKey, "series", props.filterQuery, { chart: props.def.key });
  const { data, error, loading } = useApi<Series>(url);
  const chart = prepareChart(props.def, data?.points ?? [], locale);
  return (
    <figure
      data-testid="chart"
      data-chart-key={props.def.key}
      aria-busy={loading}
      className="min-w-0 rounded-lg border border-slate-200 bg-white p-3 dark:border-slate-800 dark:bg-slate-900"
    >
      <figcaption className="mb-2 text-sm font-medium">{chart.title}</figcaption>
      {error ? (
        <ErrorNote message={error.message} />
      ) : (
        <div className={`relative h-60 text-slate-500 dark:text-slate-400 ${loading ? "opacity-60" : ""}`}>
          <ChartView chart={chart} />
          {!loading && chart.points.length === 0 && (
            <p className="absolute inset-0 flex items-center justify-center text-sm">{t("schema.noData")}</p>
          )}
        </div>
      )}
      {/* The same numbers for screen readers, which cannot read the SVG. */}
      <table className="sr-only">
        <caption>{chart.title}</caption>
        <tbody>
          {chart.points.map((p) => (
            <tr key={p.label}>
              <th scope="row">{p.label}</th>
              <td title={p.exact}>{p.display}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}

export function Charts(props: { schemaKey: string; charts: ChartDef[]; filterQuery: string }) {
  const { t } = useI18n();
  return (
    <section aria-label={t("schema.charts")} className="grid gap-4 lg:grid-cols-2">
      {props.charts.map((def) => (
        <SchemaChart key={def.key} schemaKey={props.schemaKey} def={def} filterQuery={props.filterQuery} />
      ))}
    </section>
  );
}
