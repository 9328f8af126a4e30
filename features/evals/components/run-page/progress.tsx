"use client";

import { CARD, DANGER } from "@/components/admin-kit/ui";
import { useI18n } from "@/components/i18n";
import { Money } from "@/components/ui/money";
import { formatEta, isLive } from "../../compare";
import type { RunView } from "../../contracts";

/** The run's progress bar, its Cancel while it runs, and the counts so far: items, passes, cost, ETA. */
export function Progress({
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
