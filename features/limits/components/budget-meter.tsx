"use client";

import { formatSpend, formatUsd } from "@/components/admin-kit/ui";
import { useI18n } from "@/components/i18n";

const BAR_TONE = {
  ok: "bg-emerald-500",
  soft: "bg-amber-500",
  hard: "bg-red-500",
} as const;

/**
 * What a period has spent against its budget: "$1.20 of $5.00", and a bar against the hard limit (or the soft
 * one when there is no hard limit) that turns amber past the soft limit and red at the hard one.
 */
export function BudgetMeter(props: {
  label: string;
  spent: string;
  soft: string | null;
  hard: string | null;
  testId: string;
}) {
  const { t } = useI18n();
  const spent = Number(props.spent);
  const soft = props.soft === null ? null : Number(props.soft);
  const hard = props.hard === null ? null : Number(props.hard);
  const cap = hard ?? soft;
  const tone = hard !== null && spent >= hard ? "hard" : soft !== null && spent >= soft ? "soft" : "ok";
  const percent = cap === null ? 0 : cap <= 0 ? 100 : Math.min(100, (spent / cap) * 100);
  const text =
    cap === null
      ? t("gov.limits.spentNoBudget", { spent: formatSpend(props.spent) })
      : t("gov.limits.spentOf", {
          spent: formatSpend(props.spent),
          budget: formatUsd(hard !== null ? props.hard : props.soft),
        });
  return (
    <div data-testid={props.testId} data-tone={tone} className="space-y-1">
      <div className="flex flex-wrap items-baseline justify-between gap-x-2 text-xs">
        <span className="text-slate-600 dark:text-slate-400">{props.label}</span>
        <span className="font-medium tabular-nums" title={`$${props.spent}`}>
          {text}
        </span>
      </div>
      {cap !== null && (
        <div
          role="progressbar"
          aria-label={props.label}
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={Math.round(percent)}
          aria-valuetext={text}
          className="h-1.5 overflow-hidden rounded-full bg-slate-200 dark:bg-slate-700"
        >
          <div className={`h-full rounded-full ${BAR_TONE[tone]}`} style={{ width: `${percent}%` }} />
        </div>
      )}
    </div>
  );
}
