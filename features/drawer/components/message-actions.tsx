"use client";

import { type ReactNode, useEffect, useRef, useState } from "react";
import { useI18n } from "@/components/i18n";
import { messageLength } from "./message-limit";

export const ACTION =
  "inline-flex items-center gap-1 rounded-md px-1.5 py-0.5 text-xs text-slate-600 hover:bg-slate-100 hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-indigo-500 disabled:cursor-not-allowed disabled:opacity-50 dark:text-slate-300 dark:hover:bg-slate-800 dark:hover:text-white";

/** A 20 × 20 line icon, hidden from screen readers (the button's label speaks). */
export const Icon = ({ d, filled, className }: { d: string; filled?: boolean; className?: string }) => (
  <svg
    aria-hidden="true"
    viewBox="0 0 20 20"
    fill={filled ? "currentColor" : "none"}
    stroke="currentColor"
    strokeWidth="1.6"
    className={`h-3.5 w-3.5 ${className ?? ""}`}
  >
    <path d={d} strokeLinecap="round" strokeLinejoin="round" />
  </svg>
);
const COPY =
  "M7 7V4.5A1.5 1.5 0 0 1 8.5 3h7A1.5 1.5 0 0 1 17 4.5v7a1.5 1.5 0 0 1-1.5 1.5H13M4.5 7h7A1.5 1.5 0 0 1 13 8.5v7a1.5 1.5 0 0 1-1.5 1.5h-7A1.5 1.5 0 0 1 3 15.5v-7A1.5 1.5 0 0 1 4.5 7Z";
const CHECK = "m4 10.5 4 4 8-9";
const EDIT = "M12.5 4.5l3 3M4 16l1-4 8.5-8.5a1.4 1.4 0 0 1 2 0l1 1a1.4 1.4 0 0 1 0 2L8 15l-4 1Z";
const REGENERATE = "M16 10a6 6 0 1 1-1.8-4.3M16 3.5v3.2h-3.2";

/** Copies text; the Clipboard API needs a secure context, so a hidden textarea is the fallback. */
async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.append(area);
    area.select();
    const copied = document.execCommand("copy");
    area.remove();
    return copied;
  }
}

/** Copy, then "Copied" (or "Could not copy") for two seconds, announced to screen readers. */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const { t } = useI18n();
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  return (
    <button
      type="button"
      data-testid="agent-copy"
      data-state={state}
      title={label}
      aria-label={state === "idle" ? label : undefined}
      onClick={async () => {
        setState((await copyText(text)) ? "copied" : "failed");
        clearTimeout(timer.current);
        timer.current = setTimeout(() => setState("idle"), 2000);
      }}
      className={ACTION}
    >
      <Icon d={state === "copied" ? CHECK : COPY} />
      <span aria-live="polite">
        {state === "copied"
          ? t("drawer.copied")
          : state === "failed"
            ? t("drawer.copyFailed")
            : t("drawer.copy")}
      </span>
    </button>
  );
}

export function ActionButton({
  testId,
  icon,
  label,
  title,
  disabled,
  onClick,
}: {
  testId: string;
  icon: "edit" | "regenerate";
  label: string;
  title: string;
  disabled?: boolean;
  onClick: () => void;
}) {
  return (
    <button
      type="button"
      data-testid={testId}
      title={title}
      disabled={disabled}
      onClick={onClick}
      className={ACTION}
    >
      <Icon d={icon === "edit" ? EDIT : REGENERATE} />
      {label}
    </button>
  );
}

export function ActionRow({ align, children }: { align: "start" | "end"; children: ReactNode }) {
  return (
    <div
      data-testid="agent-message-actions"
      className={`flex flex-wrap items-center gap-0.5 ${align === "end" ? "justify-end" : "justify-start"}`}
    >
      {children}
    </div>
  );
}

/** The last user message, editable: sending it replaces the message (and its answer) with a new turn. */
export function EditMessageForm({
  initial,
  onSend,
  onCancel,
}: {
  initial: string;
  onSend: (text: string) => void;
  onCancel: () => void;
}) {
  const { t } = useI18n();
  const [draft, setDraft] = useState(initial);
  const length = messageLength(draft);
  const canSend = length.length > 0 && !length.over;
  const submit = () => canSend && onSend(draft);
  return (
    <form
      data-testid="agent-edit-form"
      className="ml-auto w-full max-w-[85%] space-y-1 rounded-2xl border border-indigo-300 bg-indigo-50 p-2 dark:border-indigo-800 dark:bg-indigo-950/40"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <label className="sr-only" htmlFor="agent-edit-input">
        {t("drawer.editLabel")}
      </label>
      <textarea
        id="agent-edit-input"
        data-testid="agent-edit-input"
        value={draft}
        rows={Math.min(6, Math.max(2, draft.split("\n").length))}
        // biome-ignore lint/a11y/noAutofocus: the person just asked to edit; the box is where they type
        autoFocus
        onChange={(e) => setDraft(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Escape") {
            e.preventDefault();
            e.stopPropagation();
            onCancel();
          } else if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
            e.preventDefault();
            submit();
          }
        }}
        className="w-full resize-y rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm text-slate-900 focus:border-indigo-500 focus:outline-none focus:ring-2 focus:ring-indigo-500/30 dark:border-slate-700 dark:bg-slate-950 dark:text-slate-100"
      />
      <LengthNote length={length} />
      <p className="text-[0.7rem] text-slate-600 dark:text-slate-300">{t("drawer.editNote")}</p>
      <div className="flex justify-end gap-1">
        <button type="button" onClick={onCancel} className={ACTION} data-testid="agent-edit-cancel">
          {t("drawer.editCancel")}
        </button>
        <button
          type="submit"
          disabled={!canSend}
          data-testid="agent-edit-send"
          className="rounded-md bg-indigo-600 px-2.5 py-1 text-xs font-medium text-white hover:bg-indigo-700 disabled:cursor-not-allowed disabled:opacity-50 dark:bg-indigo-500 dark:hover:bg-indigo-400"
        >
          {t("drawer.editSend")}
        </button>
      </div>
    </form>
  );
}

/** The counter near the limit, and past it the limit named; nothing while the message is short. */
export function LengthNote({ length, id }: { length: ReturnType<typeof messageLength>; id?: string }) {
  const { t, locale } = useI18n();
  if (!length.showCounter) return null;
  const n = (value: number) => value.toLocaleString(locale === "zh" ? "zh-CN" : "en-US");
  return (
    <p
      id={id}
      data-testid="agent-char-count"
      data-over={length.over ? "true" : undefined}
      aria-live="polite"
      className={`text-xs tabular-nums ${length.over ? "font-medium text-red-700 dark:text-red-300" : "text-slate-500 dark:text-slate-400"}`}
    >
      {length.over
        ? t("drawer.tooLong", { max: n(length.max), over: n(length.length - length.max) })
        : t("drawer.counter", { count: n(length.length), max: n(length.max) })}
    </p>
  );
}
