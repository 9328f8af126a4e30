"use client";

import { ModelAliasSelect } from "@/components/admin-kit/model-select";
import { useI18n } from "@/components/i18n";
import type { Translate } from "@/lib/i18n/messages";
import type { ModelInfo } from "./types";

/** "Offline demo (demo)", "Llama 3 · no tools": the suffixes carry their own spacing (none before "（"). */
export function modelOptionLabel(model: ModelInfo, t: Translate): string {
  return `${model.label}${model.offline ? t("agent.model.demo") : ""}${model.supportsTools ? "" : t("agent.model.noTools")}`;
}

/** The model alias the next turn asks for; the demo model and tool-less models say what they are. */
export function ModelBar({
  models,
  selected,
  current,
  failed,
  onChoose,
}: {
  models: ModelInfo[] | null;
  selected: string | null;
  current: ModelInfo | null;
  failed: boolean;
  onChoose: (alias: string) => void;
}) {
  const { t } = useI18n();
  if (failed) return <p className="px-3 pb-2 text-xs text-slate-500">{t("agent.model.loadFailed")}</p>;
  return (
    <div className="px-3 pb-2">
      <div className="flex items-center gap-2">
        <label htmlFor="agent-model" className="text-xs font-medium text-slate-600 dark:text-slate-300">
          {t("agent.model.label")}
        </label>
        <ModelAliasSelect
          id="agent-model"
          data-testid="agent-model-select"
          models={models ?? []}
          emptyLabel={models ? undefined : t("agent.model.loading")}
          optionLabel={(m) => modelOptionLabel(m, t)}
          value={selected ?? ""}
          disabled={!models}
          onChange={onChoose}
          className="min-w-0 flex-1 rounded-md border border-slate-300 bg-white px-2 py-1 text-sm dark:border-slate-700 dark:bg-slate-900"
        />
      </div>
      {current?.offline && (
        <p data-testid="agent-model-note" className="mt-1 text-xs text-amber-700 dark:text-amber-300">
          {t("agent.model.demoNote")}
        </p>
      )}
      {current && !current.supportsTools && (
        <p data-testid="agent-model-note" className="mt-1 text-xs text-slate-600 dark:text-slate-300">
          {t("agent.model.noToolsNote")}
        </p>
      )}
    </div>
  );
}
