"use client";

import { useI18n } from "@/components/i18n";
import type { TurnError } from "./types";

/** What went wrong, in words; Retry sends the same message again as a new turn. */
export function TurnErrorView({ error, onRetry }: { error: TurnError; onRetry?: () => void }) {
  const { t } = useI18n();
  const text =
    error.kind === "failed"
      ? t("agent.error.failed", { message: error.message })
      : error.kind === "network"
        ? t("agent.error.network")
        : error.kind === "cut"
          ? t("agent.error.cut")
          : t("agent.signedOut");
  return (
    <div
      role="alert"
      data-testid="agent-error"
      data-kind={error.kind}
      className="flex flex-wrap items-center gap-2 rounded-md border border-red-300 bg-red-50 px-3 py-2 text-xs text-red-800 dark:border-red-900 dark:bg-red-950/40 dark:text-red-200"
    >
      <span className="min-w-0 flex-1 break-words">{text}</span>
      {error.kind === "signedOut" ? (
        <a
          href="/login"
          className="rounded-md bg-red-600 px-2 py-1 font-medium text-white hover:bg-red-700 dark:bg-red-700 dark:hover:bg-red-600"
        >
          {t("agent.signIn")}
        </a>
      ) : (
        onRetry && (
          <button
            type="button"
            data-testid="agent-retry"
            onClick={onRetry}
            className="rounded-md bg-red-600 px-2 py-1 font-medium text-white hover:bg-red-700 dark:bg-red-700 dark:hover:bg-red-600"
          >
            {t("agent.retry")}
          </button>
        )
      )}
    </div>
  );
}
