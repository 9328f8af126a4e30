"use client";

import { type FormEvent, useId, useState } from "react";
import { BUTTON, ErrorNote, PRIMARY } from "@/components/admin-kit/ui";
import { useI18n } from "@/components/i18n";
import type { PromptRightsView } from "@/features/prompts/client";
import { promptsApi } from "@/features/prompts/client";
import { LATEST, PROTECTED_LABEL } from "@/features/prompts/server/template";
import { toApiError } from "@/lib/client/api";
import { INPUT_FIXED } from "./styles";

const CHIP =
  "inline-flex items-center gap-1 rounded-full px-2 py-0.5 text-xs font-medium whitespace-nowrap ring-1 ring-inset";
const chipTone = (label: string) =>
  label === PROTECTED_LABEL
    ? "bg-emerald-50 text-emerald-800 ring-emerald-300 dark:bg-emerald-950/40 dark:text-emerald-200 dark:ring-emerald-800"
    : label === LATEST
      ? "bg-slate-100 text-slate-700 ring-slate-300 dark:bg-slate-800 dark:text-slate-200 dark:ring-slate-600"
      : "bg-indigo-50 text-indigo-800 ring-indigo-300 dark:bg-indigo-950/40 dark:text-indigo-200 dark:ring-indigo-800";

/** One label as a chip (production green, latest grey, the rest indigo). */
export function LabelChip({ label, version }: { label: string; version?: number }) {
  return (
    <span data-testid="label-chip" data-label={label} className={`${CHIP} ${chipTone(label)}`}>
      {label}
      {version !== undefined && <span className="opacity-70">v{version}</span>}
    </span>
  );
}

/**
 * The labels of the prompt and the moves that point one at the selected version: production (admins only, said
 * why when not), rollback (production to an older version), and any other label for editors.
 */
export function LabelBar(props: {
  name: string;
  labels: Record<string, number>;
  selected: number;
  archived: boolean;
  rights: PromptRightsView;
  onMoved: () => void;
  /** How a label moves (a skill's through /api/skills); the prompt routes by default. */
  move?: (name: string, label: string, version: number) => Promise<unknown>;
}) {
  const { t } = useI18n();
  const id = useId();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [other, setOther] = useState("");
  const production = props.labels[PROTECTED_LABEL];
  const here = production === props.selected;

  const move = async (label: string) => {
    setBusy(true);
    setError(null);
    try {
      await (props.move ?? promptsApi.moveLabel)(props.name, label, props.selected);
      setOther("");
      props.onMoved();
    } catch (cause) {
      setError(toApiError(cause).message);
    } finally {
      setBusy(false);
    }
  };
  const moveOther = (e: FormEvent) => {
    e.preventDefault();
    if (other.trim()) void move(other.trim());
  };

  const rollback = production !== undefined && props.selected < production;
  const productionReason = !props.rights.admin
    ? t("prompts.labels.productionAdminsOnly")
    : props.archived
      ? t("prompts.labels.archived")
      : undefined;
  const others = Object.keys(props.labels).filter((l) => l !== PROTECTED_LABEL && l !== LATEST);

  return (
    <div data-testid="label-bar" className="space-y-2">
      <div className="flex flex-wrap items-center gap-1.5">
        <span className="text-sm text-slate-600 dark:text-slate-300">{t("prompts.labels.title")}</span>
        {Object.entries(props.labels).map(([label, version]) => (
          <LabelChip key={label} label={label} version={version} />
        ))}
      </div>
      <div className="flex flex-wrap items-center gap-2">
        {here ? (
          <span data-testid="production-here" className="text-sm text-emerald-700 dark:text-emerald-300">
            ✓ {t("prompts.labels.alreadyHere")}
          </span>
        ) : (
          <button
            type="button"
            data-testid={rollback ? "rollback-production" : "promote-production"}
            disabled={busy || productionReason !== undefined}
            title={productionReason}
            onClick={() => void move(PROTECTED_LABEL)}
            className={PRIMARY}
          >
            {rollback
              ? t("prompts.labels.rollback", { version: String(props.selected) })
              : t("prompts.labels.promote", { version: String(props.selected) })}
          </button>
        )}
        {productionReason && !here && (
          <span data-testid="production-reason" className="text-xs text-slate-500 dark:text-slate-400">
            {productionReason}
          </span>
        )}
        {props.rights.edit && !props.archived && (
          <form onSubmit={moveOther} className="flex items-center gap-1.5">
            <input
              aria-label={t("prompts.labels.other")}
              data-testid="label-move-name"
              list={`${id}-labels`}
              value={other}
              placeholder={t("prompts.labels.otherPlaceholder")}
              autoComplete="off"
              onChange={(e) => setOther(e.target.value)}
              className={`${INPUT_FIXED} w-40`}
            />
            <datalist id={`${id}-labels`}>
              {["staging", ...others.filter((l) => l !== "staging")].map((l) => (
                <option key={l} value={l} />
              ))}
            </datalist>
            <button
              type="submit"
              data-testid="label-move"
              disabled={busy || !other.trim()}
              className={BUTTON}
            >
              {t("prompts.labels.move", { version: String(props.selected) })}
            </button>
          </form>
        )}
      </div>
      {error && <ErrorNote testId="label-error" message={error} />}
    </div>
  );
}
