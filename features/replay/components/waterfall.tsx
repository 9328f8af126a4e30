"use client";

import { useI18n } from "@/components/i18n";
import { formatDuration } from "@/features/admin-tables/components";
import type { WaterfallRow } from "@/features/replay/replay-view";

const BAR = {
  model: "bg-indigo-500 dark:bg-indigo-400",
  tool: "bg-emerald-500 dark:bg-emerald-400",
  failed: "bg-red-500 dark:bg-red-400",
  wait: "bg-[repeating-linear-gradient(135deg,var(--color-slate-300)_0_4px,transparent_4px_8px)] dark:bg-[repeating-linear-gradient(135deg,var(--color-slate-600)_0_4px,transparent_4px_8px)]",
};

const pct = (ms: number, total: number) =>
  `${total > 0 ? Math.min(100, Math.max(0, (ms / total) * 100)) : 0}%`;

/**
 * The turn on its own clock: one row per model call, tool (tools that ran together overlap, one under the
 * other) and stretch of waiting, each bar placed at its start and as long as it took. A row opens its step.
 */
export function Waterfall({ rows, totalMs }: { rows: WaterfallRow[]; totalMs: number }) {
  const { t } = useI18n();
  const ticks = [0, 0.25, 0.5, 0.75, 1];
  return (
    <div data-testid="replay-waterfall" className="space-y-1 text-xs">
      <div className="grid grid-cols-[6.5rem_minmax(0,1fr)_3.5rem] gap-2 sm:grid-cols-[11rem_minmax(0,1fr)_4.5rem] lg:grid-cols-[16rem_minmax(0,1fr)_4.5rem]">
        <span />
        <div className="relative h-4 text-slate-500">
          {ticks.map((f) => (
            <span
              key={f}
              // The quarter ticks only where there is room for them.
              className={`absolute top-0 whitespace-nowrap tabular-nums ${f === 1 ? "-translate-x-full" : f > 0 ? "-translate-x-1/2" : ""} ${f === 0.25 || f === 0.75 ? "hidden sm:inline" : ""}`}
              style={{ left: `${f * 100}%` }}
            >
              {formatDuration(totalMs * f)}
            </span>
          ))}
        </div>
        <span />
      </div>
      {rows.map((row) => {
        const label = row.kind === "wait" ? t("replay.waiting") : row.label;
        const tone = row.kind === "wait" ? BAR.wait : row.ok === false ? BAR.failed : BAR[row.kind];
        const content = (
          <>
            <span className="flex min-w-0 items-center gap-1">
              <span
                aria-hidden="true"
                className={`inline-block h-2 w-2 shrink-0 rounded-sm ${row.kind === "wait" ? "bg-slate-300 dark:bg-slate-600" : tone}`}
              />
              <span
                className={`truncate ${row.kind === "wait" ? "text-slate-500 italic" : "font-mono"}`}
                title={label}
              >
                {row.kind === "model" && <span className="hidden sm:inline">{t("replay.modelShort")} </span>}
                {label}
              </span>
            </span>
            <span className="relative h-4 rounded-sm bg-slate-100 dark:bg-slate-800">
              <span
                data-testid={`waterfall-bar-${row.kind}`}
                className={`absolute inset-y-0 rounded-sm ${tone}`}
                style={{
                  left: pct(row.startMs, totalMs),
                  width: `max(2px, ${pct(row.durationMs, totalMs)})`,
                }}
              />
              {row.firstTokenMs !== null && (
                <span
                  title={t("replay.firstTokenAt", { ms: formatDuration(row.firstTokenMs) })}
                  className="absolute inset-y-[-2px] w-0.5 bg-amber-400"
                  style={{ left: pct(row.startMs + row.firstTokenMs, totalMs) }}
                />
              )}
            </span>
            <span className="text-right tabular-nums text-slate-600 dark:text-slate-300">
              {formatDuration(row.durationMs)}
            </span>
          </>
        );
        const grid =
          "grid grid-cols-[6.5rem_minmax(0,1fr)_3.5rem] items-center gap-2 rounded px-0.5 sm:grid-cols-[11rem_minmax(0,1fr)_4.5rem] lg:grid-cols-[16rem_minmax(0,1fr)_4.5rem]";
        return row.seq !== null ? (
          <a
            key={row.key}
            href={`#event-${row.seq}`}
            data-testid="waterfall-row"
            data-kind={row.kind}
            className={`${grid} hover:bg-indigo-50 dark:hover:bg-slate-800`}
          >
            {content}
          </a>
        ) : (
          <div key={row.key} data-testid="waterfall-row" data-kind={row.kind} className={grid}>
            {content}
          </div>
        );
      })}
      <p className="flex flex-wrap gap-x-4 gap-y-1 pt-1 text-slate-500">
        <span>
          <span aria-hidden="true" className={`mr-1 inline-block h-2 w-2 rounded-sm ${BAR.model}`} />
          {t("replay.legendModel")}
        </span>
        <span>
          <span aria-hidden="true" className={`mr-1 inline-block h-2 w-2 rounded-sm ${BAR.tool}`} />
          {t("replay.legendTool")}
        </span>
        <span>
          <span aria-hidden="true" className="mr-1 inline-block h-2 w-0.5 bg-amber-400" />
          {t("replay.legendFirstToken")}
        </span>
        <span>
          <span
            aria-hidden="true"
            className="mr-1 inline-block h-2 w-2 rounded-sm bg-slate-300 dark:bg-slate-600"
          />
          {t("replay.legendWait")}
        </span>
      </p>
    </div>
  );
}
