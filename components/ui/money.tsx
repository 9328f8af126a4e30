"use client";

import { useI18n } from "@/components/i18n";
import { exactMoney, formatMoney } from "@/lib/core/format/money";

/** An amount as every page shows it (lib/core/format/money.ts), with the exact decimal on hover. */
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
