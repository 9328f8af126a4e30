"use client";

import { useI18n } from "@/components/i18n";
import { MarkdownText } from "@/components/ui/markdown";
import type { MessageInputs } from "@/features/drawer/contracts";
import type { MessageKey } from "@/lib/i18n/messages";
import { SentInputs } from "./message-inputs";
import type { NoticeCode } from "./types";

/** The user's words, with the context chips and files sent with them under the text. */
export function UserBubble({ text, inputs }: { text: string; inputs?: MessageInputs }) {
  const { t } = useI18n();
  return (
    <div className="flex justify-end">
      <article
        data-testid="agent-message-user"
        aria-label={t("agent.you")}
        className="max-w-[85%] min-w-0 rounded-2xl rounded-br-sm bg-indigo-600 px-3 py-2 text-sm text-white dark:bg-indigo-500"
      >
        <p className="whitespace-pre-wrap break-words">{text}</p>
        {inputs && <SentInputs inputs={inputs} />}
      </article>
    </div>
  );
}

/** An answer bubble (markdown); `display` marks a message a tool added rather than the model's words. */
export function AssistantBubble({
  text,
  streaming = false,
  display = false,
}: {
  text: string;
  streaming?: boolean;
  display?: boolean;
}) {
  const { t } = useI18n();
  return (
    <article
      data-testid="agent-message-assistant"
      data-kind={display ? "display" : "text"}
      data-streaming={streaming ? "true" : undefined}
      aria-busy={streaming || undefined}
      aria-label={t("agent.assistant")}
      className="max-w-[92%] min-w-0 overflow-hidden rounded-2xl rounded-bl-sm border border-slate-200 bg-white px-3 py-2 text-sm text-slate-900 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100"
    >
      <MarkdownText text={text} streaming={streaming} />
    </article>
  );
}

/** A stopped answer says so plainly, in words and colour, not only in the small footer. */
export function StoppedMarker() {
  const { t } = useI18n();
  return (
    <p
      data-testid="agent-stopped"
      title={t("drawer.stoppedHint")}
      className="flex w-fit items-center gap-1.5 rounded-full border border-amber-400 bg-amber-50 px-2.5 py-0.5 text-xs font-semibold text-amber-900 dark:border-amber-700 dark:bg-amber-950/50 dark:text-amber-200"
    >
      <span
        aria-hidden="true"
        className="inline-block h-2 w-2 rounded-[2px] bg-amber-600 dark:bg-amber-400"
      />
      {t("drawer.stopped")}
      <span className="sr-only">: {t("drawer.stoppedHint")}</span>
    </p>
  );
}

/** Shown while the agent works and no text has arrived yet (before the first token, while tools run). */
export function Thinking() {
  const { t } = useI18n();
  return (
    <div className="flex items-center gap-2 px-1 text-xs text-slate-500 dark:text-slate-400">
      <span aria-hidden="true" className="flex gap-0.5">
        <span className="h-1.5 w-1.5 animate-bounce rounded-full bg-slate-400" />
        <span className="h-1.5 w-1.5 animate-bounce rounded-full bg-slate-400 [animation-delay:120ms]" />
        <span className="h-1.5 w-1.5 animate-bounce rounded-full bg-slate-400 [animation-delay:240ms]" />
      </span>
      {t("agent.thinking")}
    </div>
  );
}

const NOTICE_LABEL: Record<NoticeCode, MessageKey> = {
  fallback: "agent.notice.fallback",
  loop_limit: "agent.notice.loop_limit",
  tools_unavailable: "agent.notice.tools_unavailable",
  repeated_call: "agent.notice.repeated_call",
  guardrail: "agent.notice.guardrail",
  budget_warning: "agent.notice.budget_warning",
  context: "agent.notice.context",
  attachment_cut: "agent.notice.attachment_cut",
};

export function Notice({ code, message }: { code: NoticeCode; message: string }) {
  const { t } = useI18n();
  return (
    <p
      data-testid="agent-notice"
      data-code={code}
      className="rounded-md border border-amber-300 bg-amber-50 px-2 py-1 text-xs text-amber-900 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-200"
    >
      <span className="font-semibold">{t(NOTICE_LABEL[code])}</span>
      {message && <span>: {message}</span>}
    </p>
  );
}

/**
 * A note the system added to the conversation (a background task's result handed to the model). `pending`: it
 * arrived while the conversation was idle and waits for the next turn; it shows open, so the result is seen.
 */
export function SystemNote({ text, pending = false }: { text: string; pending?: boolean }) {
  const { t } = useI18n();
  return (
    <details
      data-testid="agent-system-note"
      data-pending={pending || undefined}
      open={pending || undefined}
      className="px-1 text-xs text-slate-500 dark:text-slate-400"
    >
      <summary className="cursor-pointer">
        {t(pending ? "agent.note.arrived" : "agent.note.notification")}
      </summary>
      <pre className="mt-1 max-h-40 overflow-auto rounded bg-slate-100 p-2 font-mono whitespace-pre-wrap break-all dark:bg-slate-900">
        {text}
      </pre>
    </details>
  );
}
