import { BudgetMeter } from "@/features/limits/components";
import type { LimitView } from "@/features/limits/contracts";
import type { Translate } from "@/lib/i18n/messages";

/**
 * A scope's daily and monthly budget as the limits page shows it (what its counters hold spent, against the
 * hard limit, amber past the soft one), or "No budget" for a period without one.
 */
export function BudgetLines(props: { limits: LimitView | null; t: Translate; testId: string }) {
  const { limits, t } = props;
  const periods = [
    {
      key: "daily",
      label: t("home.budget.daily"),
      spent: limits?.spentToday ?? "0",
      soft: limits?.dailySoftUsd ?? null,
      hard: limits?.dailyHardUsd ?? null,
    },
    {
      key: "monthly",
      label: t("home.budget.monthly"),
      spent: limits?.spentThisMonth ?? "0",
      soft: limits?.monthlySoftUsd ?? null,
      hard: limits?.monthlyHardUsd ?? null,
    },
  ];
  return (
    <div className="space-y-2">
      {periods.map((p) =>
        p.soft === null && p.hard === null ? (
          <p
            key={p.key}
            data-testid={`${props.testId}-${p.key}`}
            data-budget="none"
            className="flex justify-between gap-2 text-xs text-slate-500"
          >
            <span>{p.label}</span>
            <span>{t("home.budget.none")}</span>
          </p>
        ) : (
          <div key={p.key} className="space-y-0.5">
            <BudgetMeter
              label={p.label}
              spent={p.spent}
              soft={p.soft}
              hard={p.hard}
              testId={`${props.testId}-${p.key}`}
            />
            <p className="text-right text-xs text-slate-500">
              {p.hard !== null ? t("home.budget.hard") : t("home.budget.softOnly")}
            </p>
          </div>
        ),
      )}
    </div>
  );
}
