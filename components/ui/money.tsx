"use client";

import { useI18n } from "@/components/i18n";
import { exactMoney, formatMoney } from "@/lib/core/money-format";

/** An amount as every page shows it (lib/core/money-format.ts), with the exact decimal on hover. */
export function Money(props: { value: unknown; empty?: string; className?: string; testId?: string }) {
  const { locale } = useI18n();
  return (
    <span
      data-testid={props.testId}
      title={exactMoney(props.value)}
      className={`tabular-nums whitespace-nowrap ${props.className ?? ""}`}
    >
      {formatMoney(props.value, { locale, empty: props.empty })}
    </span>
  );
}
