"use client";

import { useI18n } from "@/components/i18n";
import type { MessageKey } from "@/lib/i18n/messages";

// Each one names a demo tool in words the offline model recognises (orders, time, remember, plan).
const SUGGESTIONS: MessageKey[] = [
  "agent.suggestion.orders",
  "agent.suggestion.time",
  "agent.suggestion.remember",
  "agent.suggestion.plan",
];

export function EmptyState({ onPick, disabled }: { onPick: (text: string) => void; disabled: boolean }) {
  const { t } = useI18n();
  return (
    <div className="flex min-h-0 flex-1 flex-col justify-center gap-3 overflow-y-auto px-4 py-6">
      <h3 className="text-base font-semibold text-slate-800 dark:text-slate-100">{t("agent.empty.title")}</h3>
      <p className="text-sm text-slate-600 dark:text-slate-300">{t("agent.empty.lead")}</p>
      <ul className="flex flex-wrap gap-2" aria-label={t("agent.empty.suggestions")}>
        {SUGGESTIONS.map((key) => (
          <li key={key}>
            <button
              type="button"
              data-testid="agent-suggestion"
              disabled={disabled}
              onClick={() => onPick(t(key))}
              className="rounded-full border border-indigo-200 bg-indigo-50 px-3 py-1.5 text-left text-sm text-indigo-800 hover:bg-indigo-100 disabled:opacity-50 dark:border-indigo-900 dark:bg-indigo-950/50 dark:text-indigo-200 dark:hover:bg-indigo-900/60"
            >
              {t(key)}
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
