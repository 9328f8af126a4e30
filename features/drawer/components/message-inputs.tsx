"use client";

import { useI18n } from "@/components/i18n";
import type { ContextChip, MessageInputs, UploadedFile } from "@/features/drawer/contracts";
import { fileUrl, formatBytes, isImageType, type PendingFile } from "./attachments";
import { chipKey } from "./context-chips";
import { type ICONS, Icon } from "./icons";

const TYPE_ICON: Record<ContextChip["type"], keyof typeof ICONS> = {
  turn: "turn",
  audit_turn: "audit",
  prompt_version: "prompt",
  eval_item: "eval",
  order: "order",
};

const REMOVE =
  "-mr-1 rounded px-1 leading-none text-slate-500 hover:bg-slate-200 hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-slate-400 dark:hover:bg-slate-700 dark:hover:text-slate-100";

function ChipText({ chip }: { chip: ContextChip }) {
  const { t } = useI18n();
  return (
    <>
      <Icon name={TYPE_ICON[chip.type]} className="h-3 w-3" />
      <span className="sr-only">{t(`context.type.${chip.type}`)}: </span>
      <span className="min-w-0 truncate" title={chip.label}>
        {chip.label}
      </span>
    </>
  );
}

/** The chips waiting above the composer, each removable (by keyboard too). */
export function ComposerChips({
  chips,
  full,
  onRemove,
}: {
  chips: ContextChip[];
  full: boolean;
  onRemove: (key: string) => void;
}) {
  const { t } = useI18n();
  if (!chips.length) return null;
  return (
    <div className="space-y-1">
      <ul
        aria-label={t("context.chips.label")}
        data-testid="agent-context-chips"
        className="flex flex-wrap gap-1"
      >
        {chips.map((chip) => (
          <li
            key={chipKey(chip)}
            data-testid="agent-context-chip"
            data-type={chip.type}
            data-id={chip.id}
            className="flex max-w-full min-w-0 items-center gap-1 rounded-full border border-indigo-300 bg-indigo-50 py-0.5 pr-1.5 pl-2 text-xs text-indigo-900 dark:border-indigo-800 dark:bg-indigo-950/60 dark:text-indigo-100"
          >
            <ChipText chip={chip} />
            <button
              type="button"
              data-testid="agent-context-chip-remove"
              aria-label={t("context.chip.remove", { label: chip.label })}
              title={t("context.chip.remove", { label: chip.label })}
              onClick={() => onRemove(chipKey(chip))}
              className={REMOVE}
            >
              ×
            </button>
          </li>
        ))}
      </ul>
      {full && (
        <p role="status" className="text-xs text-amber-700 dark:text-amber-300">
          {t("context.chips.full")}
        </p>
      )}
    </div>
  );
}

/** The files in the composer: name, size, a preview for images, the upload's progress, or why it was refused. */
export function ComposerFiles({
  files,
  previewOf,
  onRemove,
}: {
  files: PendingFile[];
  previewOf: (key: string) => string | undefined;
  onRemove: (key: string) => void;
}) {
  const { t } = useI18n();
  if (!files.length) return null;
  return (
    <ul aria-label={t("context.files.label")} data-testid="agent-files" className="flex flex-col gap-1">
      {files.map((file) => {
        const preview = previewOf(file.key);
        const percent = Math.round(file.progress * 100);
        return (
          <li
            key={file.key}
            data-testid="agent-file"
            data-status={file.status}
            data-name={file.name}
            className={`flex min-w-0 items-center gap-2 rounded-md border px-2 py-1 text-xs ${
              file.status === "failed"
                ? "border-red-300 bg-red-50 text-red-900 dark:border-red-900 dark:bg-red-950/40 dark:text-red-100"
                : "border-slate-200 bg-slate-50 dark:border-slate-700 dark:bg-slate-900"
            }`}
          >
            {preview ? (
              // biome-ignore lint/performance/noImgElement: a local preview (object URL), nothing to optimise
              <img src={preview} alt="" className="h-8 w-8 shrink-0 rounded object-cover" />
            ) : (
              <span className="flex h-8 w-8 shrink-0 items-center justify-center">
                <Icon name={file.status === "failed" ? "warning" : "file"} className="h-5 w-5" />
              </span>
            )}
            <div className="min-w-0 flex-1">
              <p className="flex min-w-0 gap-2">
                <span className="truncate font-medium" title={file.name}>
                  {file.name}
                </span>
                <span className="shrink-0 text-slate-500 tabular-nums dark:text-slate-400">
                  {formatBytes(file.size)}
                </span>
              </p>
              {file.status === "uploading" && (
                <progress
                  data-testid="agent-file-progress"
                  max={100}
                  value={percent}
                  aria-label={t("context.file.uploading", { name: file.name })}
                  className="mt-0.5 h-1 w-full accent-indigo-600"
                />
              )}
              {file.status === "failed" && (
                <p data-testid="agent-file-error" role="alert" className="break-words">
                  {t("context.file.refused", { message: file.error ?? "" })}
                </p>
              )}
            </div>
            <button
              type="button"
              data-testid="agent-file-remove"
              aria-label={t("context.file.remove", { name: file.name })}
              title={t("context.file.remove", { name: file.name })}
              onClick={() => onRemove(file.key)}
              className={REMOVE}
            >
              ×
            </button>
          </li>
        );
      })}
    </ul>
  );
}

function SentFile({ file }: { file: UploadedFile }) {
  const { t } = useI18n();
  return (
    <li data-testid="agent-message-file" data-name={file.name} className="min-w-0">
      <a
        href={fileUrl(file.id)}
        target="_blank"
        rel="noopener noreferrer"
        title={t("context.file.open", { name: file.name })}
        className="flex min-w-0 items-center gap-1.5 rounded-md bg-white/15 px-1.5 py-1 text-xs text-white hover:bg-white/25"
      >
        {isImageType(file.type) ? (
          // biome-ignore lint/performance/noImgElement: a stored attachment, served by the app with the user's rights
          <img
            src={fileUrl(file.id)}
            alt=""
            className="h-8 w-8 shrink-0 rounded object-cover"
            loading="lazy"
          />
        ) : (
          <Icon name="file" className="h-4 w-4" />
        )}
        <span className="min-w-0 truncate">{file.name}</span>
        <span className="shrink-0 opacity-80 tabular-nums">{formatBytes(file.size)}</span>
        <span className="sr-only"> {t("agent.link.newTab")}</span>
      </a>
    </li>
  );
}

/** On a user's bubble: the context chips and files that went with the message. */
export function SentInputs({ inputs }: { inputs: MessageInputs }) {
  const { t } = useI18n();
  const chips = inputs.context ?? [];
  const files = inputs.attachments ?? [];
  if (!chips.length && !files.length) return null;
  return (
    <div className="mt-1.5 space-y-1">
      {chips.length > 0 && (
        <ul aria-label={t("context.sent.chips")} className="flex flex-wrap justify-end gap-1">
          {chips.map((chip) => (
            <li
              key={chipKey(chip)}
              data-testid="agent-message-chip"
              data-type={chip.type}
              data-id={chip.id}
              className="flex max-w-full min-w-0 items-center gap-1 rounded-full bg-white/15 px-2 py-0.5 text-xs"
            >
              <ChipText chip={chip} />
            </li>
          ))}
        </ul>
      )}
      {files.length > 0 && (
        <ul aria-label={t("context.sent.files")} className="flex flex-col items-end gap-1">
          {files.map((file) => (
            <SentFile key={file.id} file={file} />
          ))}
        </ul>
      )}
    </div>
  );
}
