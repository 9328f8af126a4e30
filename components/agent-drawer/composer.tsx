"use client";

import { type RefObject, useState } from "react";
import { useI18n } from "@/components/i18n";
import { LengthNote } from "./message-actions";
import { messageLength } from "./message-limit";

/**
 * The message box and its one button: Send, or Stop while a turn runs. The box stays enabled while the
 * answer streams so focus never leaves it; only sending waits.
 */
export function Composer({
  inputRef,
  running,
  disabled,
  onSend,
  onStop,
}: {
  inputRef: RefObject<HTMLTextAreaElement | null>;
  running: boolean;
  /** No sending at all (no tenant, conversation loading). */
  disabled: boolean;
  onSend: (text: string) => void;
  onStop: () => void;
}) {
  const { t } = useI18n();
  const [draft, setDraft] = useState("");
  const length = messageLength(draft);
  // Past the limit the server would refuse it: say so here, with the limit, instead of sending.
  const canSend = !running && !disabled && length.length > 0 && !length.over;

  const submit = () => {
    if (!canSend) return;
    onSend(draft);
    setDraft("");
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
      <div className="flex items-end gap-2">
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
