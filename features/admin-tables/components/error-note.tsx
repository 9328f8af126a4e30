"use client";

import { useI18n } from "@/components/i18n";

/** A failed request, said inline where its data would be. */
export function ErrorNote({ message }: { message: string }) {
  const { t } = useI18n();
  return (
    <p
      role="alert"
      data-testid="schema-error"
      className="rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm break-words text-red-800 dark:border-red-900 dark:bg-red-950/40 dark:text-red-200"
    >
      {t("schema.error", { message })}
    </p>
  );
}
