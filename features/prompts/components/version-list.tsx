"use client";

import { DateText, Pill } from "@/components/admin-kit/ui";
import { useI18n } from "@/components/i18n";
import type { PromptVersionView } from "@/features/prompts/contracts";
import { LabelChip } from "./label-bar";

/** A prompt's versions, newest first: number, labels, commit message, author and time; the selected one marked. */
export function VersionList(props: {
  versions: PromptVersionView[];
  selected: number;
  onSelect: (version: number) => void;
}) {
  const { t } = useI18n();
  return (
    <nav aria-label={t("prompts.versions")} data-testid="version-list">
      <ol className="space-y-1.5">
        {props.versions.map((v) => {
          const current = v.version === props.selected;
          return (
            <li key={v.version}>
              <button
                type="button"
                data-testid="version-item"
                data-version={v.version}
                aria-current={current || undefined}
                onClick={() => props.onSelect(v.version)}
                className={`w-full space-y-1 rounded-md border px-3 py-2 text-left text-sm ${
                  current
                    ? "border-indigo-400 bg-indigo-50 dark:border-indigo-600 dark:bg-indigo-950/40"
                    : "border-slate-200 hover:bg-slate-50 dark:border-slate-800 dark:hover:bg-slate-800/50"
                } ${v.archived ? "opacity-60" : ""}`}
              >
                <span className="flex flex-wrap items-center gap-1">
                  <span className="font-semibold">v{v.version}</span>
                  {v.labels.map((l) => (
                    <LabelChip key={l} label={l} />
                  ))}
                  {v.archived && (
                    <Pill tone="slate" testId="version-archived">
                      {t("prompts.archived")}
                    </Pill>
                  )}
                </span>
                <span
                  className="block truncate text-slate-700 dark:text-slate-200"
                  title={v.message ?? undefined}
                >
                  {v.message ?? <span className="text-slate-400">{t("prompts.noMessage")}</span>}
                </span>
                <span className="block truncate text-xs text-slate-500 dark:text-slate-400">
                  {v.createdBy}
                </span>
                <span className="block truncate text-xs text-slate-500 dark:text-slate-400">
                  <DateText value={v.createdAt} fallback="—" />
                </span>
              </button>
            </li>
          );
        })}
      </ol>
    </nav>
  );
}
