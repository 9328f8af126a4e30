"use client";

import { useI18n } from "@/components/i18n";
import type { MetricDef } from "@/features/admin-tables/contracts";
import { exactMoney } from "@/lib/core/format/money";
import { type Metrics, schemaUrl } from "./api";
import { ErrorNote } from "./error-note";
import { formatMeasure, pick } from "./format";
import { useApi } from "./use-api";

/** The headline numbers of the filtered rows, one card per metric of the schema. */
export function MetricCards(props: { schemaKey: string; metrics: MetricDef[]; filterQuery: string }) {
  const { t, locale } = useI18n();
  const { data, error, loading } = useApi<Metrics>(schemaUrl(props.schemaKey, "metrics", props.filterQuery));
  return (
    <section aria-label={t("schema.summary")} aria-busy={loading} className="space-y-2">
      <ul className="grid grid-cols-2 gap-3 md:grid-cols-4">
        {props.metrics.map((metric) => {
          const value = data?.metrics[metric.key];
          return (
            <li
              key={metric.key}
              data-testid="metric-card"
              data-metric-key={metric.key}
              className="rounded-lg border border-slate-200 bg-white p-3 dark:border-slate-800 dark:bg-slate-900"
            >
              <p className="truncate text-xs text-slate-500 dark:text-slate-400">
                {pick(metric.label, locale)}
              </p>
              <p
                data-testid="metric-value"
                className={`mt-1 text-base font-semibold [overflow-wrap:anywhere] tabular-nums sm:text-xl ${loading ? "opacity-60" : ""}`}
                title={
                  value === undefined
                    ? undefined
                    : value === null
                      ? t("schema.noPricedCalls")
                      : metric.format === "money"
                        ? exactMoney(value)
                        : String(value)
                }
              >
                {value === undefined
                  ? loading
                    ? "…"
                    : "—"
                  : value === null
                    ? "—"
                    : formatMeasure(metric.format, value, locale)}
              </p>
            </li>
          );
        })}
      </ul>
      {error && <ErrorNote message={error.message} />}
    </section>
  );
}
