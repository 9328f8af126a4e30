import { exactMoney, formatMoney } from "@/lib/core/format/money";
import { formatCount } from "@/lib/core/format/number";
import type { Locale, Translate } from "@/lib/i18n/messages";
import type { PeriodUsage } from "../server";

/**
 * A period's spend: the priced calls' sum, and "+ N unpriced" beside it for calls whose cost is unknown, which
 * are never shown as $0 (with no priced call at all, the amount itself is unknown: "—").
 */
export function Spend(props: { usage: PeriodUsage; t: Translate; locale: Locale; testId: string }) {
  const { usage, t, locale } = props;
  const priced = usage.requests - usage.unpriced;
  const amount = priced === 0 && usage.unpriced > 0 ? null : usage.cost;
  return (
    <p data-testid={props.testId} className="flex flex-wrap items-baseline gap-x-2">
      <span
        data-testid={`${props.testId}-amount`}
        className="text-2xl font-semibold tabular-nums"
        title={exactMoney(amount)}
      >
        {formatMoney(amount, { locale })}
      </span>
      {usage.unpriced > 0 && (
        <span data-testid={`${props.testId}-unpriced`} className="text-sm text-amber-700 dark:text-amber-400">
          {t("home.unpriced", { count: formatCount(usage.unpriced, { locale }) })}
        </span>
      )}
    </p>
  );
}

/** Failures as a share of calls, one decimal ("2.5%"); "—" with no calls. */
export function failureRate(usage: PeriodUsage): string {
  if (usage.requests === 0) return "—";
  return `${((usage.failures / usage.requests) * 100).toFixed(1)}%`;
}
