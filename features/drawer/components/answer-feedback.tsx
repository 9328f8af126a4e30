"use client";

import { type ReactNode, useId, useRef, useState } from "react";
import { useI18n } from "@/components/i18n";
import type { FeedbackValue, TurnFeedback } from "@/features/drawer/contracts";
import { SCORE_COMMENT_MAX } from "@/features/scores/contracts";
import { ACTION, ActionRow, Icon } from "./message-actions";
import { useFeedback } from "./use-feedback";

const THUMB =
  "M6.5 9v8H4a1 1 0 0 1-1-1v-6a1 1 0 0 1 1-1h2.5Zm0 0 3-5.5a1.4 1.4 0 0 1 2.6.8L11.5 8h4a1.5 1.5 0 0 1 1.5 1.8l-1.2 5.9A1.6 1.6 0 0 1 14.2 17H6.5";
const COMMENT = "M4 4.5h12a1 1 0 0 1 1 1v7a1 1 0 0 1-1 1H9l-3.5 3v-3H4a1 1 0 0 1-1-1v-7a1 1 0 0 1 1-1Z";
const PRESSED =
  "bg-indigo-100 text-indigo-800 hover:bg-indigo-100 hover:text-indigo-900 dark:bg-indigo-950 dark:text-indigo-200";

/**
 * The answer's action row with the user's thumbs up / down beside Copy and Regenerate, and under it the optional
 * comment: a small form after a vote (Escape cancels), the saved comment otherwise, and why a save failed.
 */
export function AnswerFeedback({
  turnId,
  saved,
  onSaved,
  children,
}: {
  turnId: string;
  saved: TurnFeedback | null;
  onSaved: (turnId: string, feedback: TurnFeedback | null) => void;
  /** The row's other actions (Copy, Regenerate). */
  children: ReactNode;
}) {
  const { t } = useI18n();
  const feedback = useFeedback(turnId, saved, onSaved);
  const [editing, setEditing] = useState(false);
  const [status, setStatus] = useState("");
  const commentButton = useRef<HTMLButtonElement>(null);
  const { current } = feedback;

  const press = async (value: FeedbackValue) => {
    const next = await feedback.press(value);
    if (next === undefined) return;
    setStatus(
      next === null
        ? t("drawer.feedback.removed")
        : t(next === "up" ? "drawer.feedback.savedUp" : "drawer.feedback.savedDown"),
    );
    setEditing(next !== null);
  };
  const closeForm = () => {
    setEditing(false);
    // Back to where the person was, once the button is there again.
    requestAnimationFrame(() => commentButton.current?.focus());
  };

  const thumb = (value: FeedbackValue) => {
    const pressed = current?.value === value;
    return (
      <button
        type="button"
        data-testid={`agent-feedback-${value}`}
        aria-pressed={pressed}
        aria-label={t(value === "up" ? "drawer.feedback.up" : "drawer.feedback.down")}
        title={t(value === "up" ? "drawer.feedback.upTitle" : "drawer.feedback.downTitle")}
        onClick={() => void press(value)}
        className={`${ACTION} ${pressed ? PRESSED : ""}`}
      >
        <Icon d={THUMB} filled={pressed} className={value === "down" ? "rotate-180" : undefined} />
      </button>
    );
  };

  return (
    <div className="space-y-1" data-testid="agent-feedback" data-vote={current?.value ?? "none"}>
      <ActionRow align="start">
        {children}
        <fieldset
          aria-label={t("drawer.feedback.group")}
          className="m-0 inline-flex min-w-0 items-center gap-0.5 border-0 p-0"
        >
          {thumb("up")}
          {thumb("down")}
        </fieldset>
        {current && !editing && (
          <button
            ref={commentButton}
            type="button"
            data-testid="agent-feedback-comment-open"
            title={t("drawer.feedback.commentTitle")}
            onClick={() => setEditing(true)}
            className={ACTION}
          >
            <Icon d={COMMENT} />
            {t("drawer.feedback.comment")}
          </button>
        )}
      </ActionRow>
      {editing && current ? (
        <CommentForm
          initial={current.comment ?? ""}
          onCancel={closeForm}
          onSave={async (text) => {
            if (await feedback.comment(text)) closeForm();
          }}
        />
      ) : (
        current?.comment && (
          <p
            data-testid="agent-feedback-note"
            className="break-words px-1 text-xs text-slate-600 italic dark:text-slate-300"
          >
            {t("drawer.feedback.yourComment", { comment: current.comment })}
          </p>
        )
      )}
      {feedback.error && (
        <p
          role="alert"
          data-testid="agent-feedback-error"
          className="px-1 text-xs font-medium text-red-700 dark:text-red-300"
        >
          {t("drawer.feedback.failed", { message: feedback.error })}
        </p>
      )}
      <span className="sr-only" aria-live="polite">
        {status}
      </span>
    </div>
  );
}

/** The optional comment on a vote: Enter (or Save) saves it, Shift+Enter is a new line, Escape cancels. */
function CommentForm({
  initial,
  onSave,
  onCancel,
}: {
  initial: string;
  onSave: (text: string) => Promise<void>;
  onCancel: () => void;
}) {
  const { t } = useI18n();
  const [draft, setDraft] = useState(initial);
  const [saving, setSaving] = useState(false);
  const id = useId();
  const submit = async () => {
    if (saving) return;
    setSaving(true);
    await onSave(draft);
    setSaving(false);
  };
  return (
    <form
      data-testid="agent-feedback-comment-form"
      className="space-y-1 rounded-lg border border-slate-200 bg-slate-50 p-2 dark:border-slate-700 dark:bg-slate-900"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <label className="block text-xs font-medium text-slate-700 dark:text-slate-200" htmlFor={id}>
        {t("drawer.feedback.commentLabel")}
      </label>
      <textarea
        id={id}
        data-testid="agent-feedback-comment"
        value={draft}
        rows={2}
        maxLength={SCORE_COMMENT_MAX}
        placeholder={t("drawer.feedback.commentPlaceholder")}
        // biome-ignore lint/a11y/noAutofocus: the person just voted or asked to comment; the box is where they type
        autoFocus
        onChange={(e) => setDraft(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Escape") {
            e.preventDefault();
            // The drawer closes on Escape too: this one only closes the form.
            e.stopPropagation();
            onCancel();
          } else if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
            e.preventDefault();
            void submit();
          }
        }}
        className="w-full resize-y rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm text-slate-900 focus:border-indigo-500 focus:outline-none focus:ring-2 focus:ring-indigo-500/30 dark:border-slate-700 dark:bg-slate-950 dark:text-slate-100"
      />
      <div className="flex justify-end gap-1">
        <button
          type="button"
          onClick={onCancel}
          className={ACTION}
          data-testid="agent-feedback-comment-cancel"
        >
          {t("drawer.feedback.cancel")}
        </button>
        <button
          type="submit"
          disabled={saving}
          data-testid="agent-feedback-comment-save"
          className="rounded-md bg-indigo-600 px-2.5 py-1 text-xs font-medium text-white hover:bg-indigo-700 disabled:cursor-not-allowed disabled:opacity-50 dark:bg-indigo-500 dark:hover:bg-indigo-400"
        >
          {t("drawer.feedback.save")}
        </button>
      </div>
    </form>
  );
}
