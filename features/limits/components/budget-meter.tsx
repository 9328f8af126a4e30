"use client";

import Big from "big.js";
import { useI18n } from "@/components/i18n";
import { exactMoney, formatMoney } from "@/lib/core/format/money";

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
  const { t, locale } = useI18n();
  const spent = Number(props.spent);
  const soft = props.soft === null ? null : Number(props.soft);
  const hard = props.hard === null ? null : Number(props.hard);
  const cap = hard ?? soft;
  // Compared as decimals (the bar's width is only geometry), so "$5.00 of $5.00" is at the limit exactly.
  const reached = (limit: string | null) => limit !== null && new Big(props.spent).gte(limit);
  const tone = reached(props.hard) ? "hard" : reached(props.soft) ? "soft" : "ok";
  const percent = cap === null ? 0 : cap <= 0 ? 100 : Math.min(100, (spent / cap) * 100);
  const text =
    cap === null
      ? t("gov.limits.spentNoBudget", { spent: formatMoney(props.spent, { locale }) })
      : t("gov.limits.spentOf", {
          spent: formatMoney(props.spent, { locale }),
          budget: formatMoney(hard !== null ? props.hard : props.soft, { locale }),
        });
  return (
    <div data-testid={props.testId} data-tone={tone} className="space-y-1">
      <div className="flex flex-wrap items-baseline justify-between gap-x-2 text-xs">
        <span className="text-slate-600 dark:text-slate-400">{props.label}</span>
        <span className="font-medium tabular-nums" title={exactMoney(props.spent)}>
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
