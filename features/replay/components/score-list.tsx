"use client";

import { useI18n } from "@/components/i18n";
import { formatDateTime } from "@/features/admin-tables/components";
import type { ReplayScore } from "@/features/replay/contracts";

const shownValue = (value: ReplayScore["value"]) =>
  value === true ? "👍" : value === false ? "👎" : value === null ? "—" : String(value);

/** A turn's or a run's feedback and scores: name, value, who said so (and as what), and why. */
export function ScoreList({ scores }: { scores: ReplayScore[] }) {
  const { t, locale } = useI18n();
  return (
    <section
      data-testid="replay-scores"
      aria-label={t("replay.scores")}
      className="rounded-lg border border-slate-200 bg-white p-3 text-sm dark:border-slate-800 dark:bg-slate-900"
    >
      <h2 className="mb-2 text-xs font-medium text-slate-500 dark:text-slate-400">{t("replay.scores")}</h2>
      <ul className="min-w-0 space-y-1.5">
        {scores.map((s) => (
          <li
            key={`${s.name}-${s.who}-${s.updatedAt}`}
            data-testid="replay-score"
            className="flex min-w-0 flex-wrap items-baseline gap-x-3 gap-y-0.5"
          >
            <span className="font-mono">{s.name}</span>
            <span data-testid="replay-score-value" className="font-medium tabular-nums">
              {shownValue(s.value)}
            </span>
            <span className="text-xs text-slate-500">
              {t("replay.scoreBy", { who: s.who ?? "—", source: s.source })} ·{" "}
              {formatDateTime(new Date(s.updatedAt), locale)}
            </span>
            {s.comment && (
              <span className="min-w-0 basis-full break-words text-slate-600 dark:text-slate-300">
                “{s.comment}”
              </span>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
