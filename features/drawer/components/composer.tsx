"use client";

import { type RefObject, useRef, useState } from "react";
import { useI18n } from "@/components/i18n";
import type { MessageInputs } from "@/features/drawer/contracts";
import { ACCEPT, attachedFiles, isUploading } from "./attachments";
import { useAgentDrawer } from "./drawer-context";
import { Icon } from "./icons";
import { LengthNote } from "./message-actions";
import { ComposerChips, ComposerFiles } from "./message-inputs";
import { messageLength } from "./message-limit";
import type { Attachments } from "./use-attachments";

/**
 * The message box and its one button: Send, or Stop while a turn runs. The box stays enabled while the
 * answer streams so focus never leaves it; only sending waits. Above it: the context chips pages added ("Ask the
 * assistant") and the attached files (paperclip, paste; drops land on the whole drawer), sent with the message.
 */
export function Composer({
  inputRef,
  running,
  disabled,
  attachments,
  onSend,
  onStop,
}: {
  inputRef: RefObject<HTMLTextAreaElement | null>;
  running: boolean;
  /** No sending at all (no tenant, conversation loading). */
  disabled: boolean;
  attachments: Attachments;
  onSend: (text: string, inputs: MessageInputs) => void;
  onStop: () => void;
}) {
  const { t } = useI18n();
  const { chips, chipsFull, removeChip, clearChips } = useAgentDrawer();
  const [draft, setDraft] = useState("");
  const picker = useRef<HTMLInputElement>(null);
  const length = messageLength(draft);
  // Files still uploading have no id yet: the message waits for them (a refused file is simply not sent).
  const uploading = isUploading(attachments.files);
  // Past the limit the server would refuse it: say so here, with the limit, instead of sending.
  const canSend = !running && !disabled && !uploading && length.length > 0 && !length.over;

  const submit = () => {
    if (!canSend) return;
    const files = attachedFiles(attachments.files);
    onSend(draft, {
      ...(chips.length ? { context: chips } : {}),
      ...(files.length ? { attachments: files } : {}),
    });
    setDraft("");
    clearChips();
    attachments.clear();
    inputRef.current?.focus();
  };

  return (
    <form
      className="border-t border-slate-200 p-3 dark:border-slate-800"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      {(chips.length > 0 || attachments.files.length > 0) && (
        // Many files on a small screen scroll here rather than squeeze the conversation out of view.
        <div className="mb-2 max-h-40 space-y-1.5 overflow-y-auto">
          <ComposerChips
            chips={chips}
            full={chipsFull}
            onRemove={(key) => {
              removeChip(key);
              inputRef.current?.focus();
            }}
          />
          <ComposerFiles
            files={attachments.files}
            previewOf={attachments.previewOf}
            onRemove={(key) => {
              attachments.remove(key);
              inputRef.current?.focus();
            }}
          />
        </div>
      )}
      <div className="flex items-end gap-2">
        <input
          ref={picker}
          type="file"
          multiple
          accept={ACCEPT}
          data-testid="agent-file-input"
          tabIndex={-1}
          aria-hidden="true"
          className="hidden"
          onChange={(e) => {
            if (e.target.files?.length) attachments.add([...e.target.files]);
            e.target.value = ""; // the same file can be picked again after removing it
          }}
        />
        <button
          type="button"
          data-testid="agent-attach"
          aria-label={t("context.attach")}
          title={t("context.attachHint")}
          disabled={disabled}
          onClick={() => picker.current?.click()}
          className="self-stretch rounded-md border border-slate-300 px-2 text-slate-600 hover:bg-slate-100 hover:text-slate-900 disabled:cursor-not-allowed disabled:opacity-50 dark:border-slate-700 dark:text-slate-300 dark:hover:bg-slate-800 dark:hover:text-white"
        >
          <Icon name="paperclip" className="h-4 w-4" />
        </button>
        <label htmlFor="agent-input" className="sr-only">
          {t("agent.input.label")}
        </label>
        <textarea
          id="agent-input"
          ref={inputRef}
          data-testid="agent-input"
          rows={2}
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          onPaste={(e) => {
            // Pasted files (a screenshot, a copied file) attach; pasted text stays text.
            const files = [...e.clipboardData.files];
            if (!files.length) return;
            e.preventDefault();
            attachments.add(files);
          }}
          onKeyDown={(e) => {
            // While an IME is composing (Chinese input), Enter picks the candidate; it must not send.
            if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
              e.preventDefault();
              submit();
            }
          }}
          placeholder={t("agent.input.placeholder")}
          aria-describedby={length.showCounter ? "agent-input-hint agent-input-count" : "agent-input-hint"}
          aria-invalid={length.over || undefined}
          className="max-h-40 min-h-[2.75rem] min-w-0 flex-1 resize-y rounded-md border border-slate-300 aria-[invalid=true]:border-red-500 bg-white px-2 py-1.5 text-sm text-slate-900 placeholder:text-slate-400 focus:border-indigo-500 focus:outline-none focus:ring-2 focus:ring-indigo-500/30 dark:border-slate-700 dark:bg-slate-950 dark:text-slate-100 dark:placeholder:text-slate-500"
        />
        <span id="agent-input-hint" className="sr-only">
          {t("agent.input.hint")}
        </span>
        {running ? (
          <button
            type="button"
            data-testid="agent-send"
            data-state="stop"
            onClick={() => {
              onStop();
              inputRef.current?.focus();
            }}
            className="rounded-md bg-slate-700 px-3 py-2 text-sm font-medium text-white hover:bg-slate-800 dark:bg-slate-200 dark:text-slate-900 dark:hover:bg-white"
          >
            {t("agent.stop")}
          </button>
        ) : (
          <button
            type="submit"
            data-testid="agent-send"
            data-state="send"
            disabled={!canSend}
            title={uploading ? t("context.files.waiting") : undefined}
            className="rounded-md bg-indigo-600 px-3 py-2 text-sm font-medium text-white hover:bg-indigo-700 disabled:cursor-not-allowed disabled:opacity-50 dark:bg-indigo-500 dark:hover:bg-indigo-400"
          >
            {t("agent.send")}
          </button>
        )}
      </div>
      <LengthNote length={length} id="agent-input-count" />
    </form>
  );
}
