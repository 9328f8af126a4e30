"use client";

import { useI18n } from "@/components/i18n";
import type { ContextChip } from "@/features/drawer/contracts";
import { useAgentDrawer } from "./drawer-context";
import { Icon } from "./icons";

const BUTTON =
  "inline-flex items-center gap-1 rounded-md border border-indigo-300 px-2.5 py-1 text-sm text-indigo-700 hover:bg-indigo-50 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:border-indigo-800 dark:text-indigo-300 dark:hover:bg-indigo-950/50";

/** A short id for a chip's label: the first eight characters of a UUID, the whole of anything shorter. */
export const shortId = (id: string) => (id.length > 12 ? `${id.slice(0, 8)}…` : id);

/**
 * "Ask the assistant" on a detail view: opens the drawer with a chip for this object above the composer.
 * `before` runs first (a modal detail closes, so the drawer is not behind it). Hidden where the drawer cannot
 * send (no tenant chosen).
 */
export function AskAssistantButton({
  item,
  before,
  className,
}: {
  item: ContextChip;
  before?: () => void;
  className?: string;
}) {
  const { t } = useI18n();
  const { askAssistant } = useAgentDrawer();
  if (!askAssistant) return null;
  return (
    <button
      type="button"
      data-testid="ask-assistant"
      data-context-type={item.type}
      data-context-id={item.id}
      aria-label={t("context.askAbout", { label: item.label })}
      title={t("context.askAbout", { label: item.label })}
      onClick={() => {
        before?.();
        askAssistant(item);
      }}
      className={className ?? BUTTON}
    >
      <Icon name="sparkle" />
      {t("context.ask")}
    </button>
  );
}
