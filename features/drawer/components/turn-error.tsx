"use client";

import { useEffect, useState } from "react";
import { useI18n } from "@/components/i18n";
import type { Translate } from "@/lib/i18n/messages";
import { isRetryable, type TurnError } from "./types";

function errorText(error: TurnError, t: Translate): string {
  switch (error.kind) {
    case "failed":
      return t("agent.error.failed", { message: error.message });
    case "refused":
      return t("drawer.error.refused", { message: error.message });
    case "rateLimited":
      return t("drawer.error.rateLimited", { message: error.message });
    case "unavailable":
      return t("drawer.error.unavailable");
    case "network":
      return t("agent.error.network");
    case "cut":
      return t("agent.error.cut");
    case "signedOut":
      return t("agent.signedOut");
  }
}

/** Seconds until `at` (epoch ms), ticking down; 0 once it has passed. */
function useSecondsUntil(at: number | undefined): number {
  const left = () => (at === undefined ? 0 : Math.max(0, Math.ceil((at - Date.now()) / 1000)));
  const [seconds, setSeconds] = useState(left);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `left` reads only `at`
  useEffect(() => {
    setSeconds(left());
    if (at === undefined) return;
    const timer = setInterval(() => {
      const next = left();
      setSeconds(next);
      if (!next) clearInterval(timer);
    }, 500);
    return () => clearInterval(timer);
  }, [at]);
  return seconds;
}

/**
 * What went wrong, in words. Retry (the same message again, as a new turn) is offered only when it can help:
 * after the server's own failure, a lost connection, or a rate limit once its wait is over; a refusal (a 4xx
 * such as a too-long message) shows the server's reason instead.
 */
export function TurnErrorView({ error, onRetry }: { error: TurnError; onRetry?: () => void }) {
  const { t } = useI18n();
  const wait = useSecondsUntil(
    error.kind === "rateLimited" || error.kind === "unavailable" ? error.retryAt : undefined,
  );
  return (
    <div
      role="alert"
      data-testid="agent-error"
      data-kind={error.kind}
      className="flex flex-wrap items-center gap-2 rounded-md border border-red-300 bg-red-50 px-3 py-2 text-xs text-red-800 dark:border-red-900 dark:bg-red-950/40 dark:text-red-200"
    >
      <span className="min-w-0 flex-1 break-words">{errorText(error, t)}</span>
      {error.kind === "signedOut" ? (
        <a
          href="/login"
          className="rounded-md bg-red-600 px-2 py-1 font-medium text-white hover:bg-red-700 dark:bg-red-700 dark:hover:bg-red-600"
        >
          {t("agent.signIn")}
        </a>
      ) : (
        onRetry &&
        isRetryable(error) && (
          <button
            type="button"
            data-testid="agent-retry"
            onClick={onRetry}
            disabled={wait > 0}
            className="rounded-md bg-red-600 px-2 py-1 font-medium text-white hover:bg-red-700 disabled:cursor-not-allowed disabled:opacity-60 dark:bg-red-700 dark:hover:bg-red-600"
          >
            {wait > 0 ? t("drawer.retryIn", { s: String(wait) }) : t("agent.retry")}
          </button>
        )
      )}
    </div>
  );
}
