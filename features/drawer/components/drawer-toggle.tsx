"use client";

import { useI18n } from "@/components/i18n";
import { useAgentDrawer } from "./drawer-context";

export const DRAWER_ID = "agent-drawer";

/** The top-bar button that opens and closes the assistant (also Ctrl+/ or ⌘/). */
export function AgentDrawerToggle() {
  const { t } = useI18n();
  const { open, toggle, toggleRef } = useAgentDrawer();
  return (
    <button
      ref={toggleRef}
      type="button"
      data-testid="agent-drawer-toggle"
      aria-expanded={open}
      aria-controls={DRAWER_ID}
      aria-keyshortcuts="Control+/ Meta+/"
      title={t("agent.toggleTitle")}
      onClick={toggle}
      className={`rounded-md border px-2 py-1 text-sm ${
        open
          ? "border-indigo-500 bg-indigo-50 text-indigo-700 dark:border-indigo-400 dark:bg-indigo-950 dark:text-indigo-200"
          : "border-slate-300 hover:bg-slate-100 dark:border-slate-700 dark:hover:bg-slate-800"
      }`}
    >
      <span aria-hidden="true">✦ </span>
      {t("agent.open")}
    </button>
  );
}
