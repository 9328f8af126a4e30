"use client";

import { useState } from "react";
import { useI18n } from "@/components/i18n";
import type { Translate } from "@/lib/i18n/messages";
import type { ConversationSummary } from "./types";

/** The server names an untitled conversation "New conversation"; show that in the reader's language. */
export function conversationTitle(c: ConversationSummary | undefined, t: Translate): string {
  return !c?.title || c.title === "New conversation" ? t("agent.conversations.untitled") : c.title;
}

const SMALL_BUTTON =
  "rounded px-1.5 py-0.5 text-xs hover:bg-slate-200 disabled:cursor-not-allowed disabled:opacity-40 dark:hover:bg-slate-700";

function ConversationRow({
  conversation,
  current,
  busy,
  onOpen,
  onRename,
  onDelete,
}: {
  conversation: ConversationSummary;
  current: boolean;
  busy: boolean;
  onOpen: () => void;
  onRename: (title: string) => Promise<void>;
  onDelete: () => Promise<void>;
}) {
  const { t } = useI18n();
  const title = conversationTitle(conversation, t);
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [failed, setFailed] = useState(false);
  const [saving, setSaving] = useState(false);

  const attempt = async (action: () => Promise<void>) => {
    setSaving(true);
    setFailed(false);
    try {
      await action();
      return true;
    } catch {
      setFailed(true);
      return false;
    } finally {
      setSaving(false);
    }
  };

  return (
    <li
      data-testid="agent-conversation-item"
      data-conversation-id={conversation.id}
      aria-current={current ? "true" : undefined}
      className={`rounded-md px-2 py-1 ${current ? "bg-indigo-50 dark:bg-indigo-950/50" : ""}`}
    >
      {editing ? (
        <form
          className="flex items-center gap-1"
          onSubmit={async (e) => {
            e.preventDefault();
            const value = new FormData(e.currentTarget).get("title");
            const next = typeof value === "string" ? value.trim() : "";
            if (!next) return;
            if (await attempt(() => onRename(next))) setEditing(false);
          }}
        >
          <input
            name="title"
            data-testid="agent-rename-input"
            aria-label={t("agent.conversations.renameLabel")}
            defaultValue={conversation.title ?? ""}
            maxLength={200}
            // biome-ignore lint/a11y/noAutofocus: the person just asked to rename; the field is where they type
            autoFocus
            onKeyDown={(e) => {
              if (e.key === "Escape") {
                // Cancels the rename only; the drawer stays open.
                e.preventDefault();
                e.stopPropagation();
                setEditing(false);
              }
            }}
            className="min-w-0 flex-1 rounded border border-slate-300 bg-white px-1.5 py-0.5 text-sm dark:border-slate-600 dark:bg-slate-900"
          />
          <button type="submit" disabled={saving} className={SMALL_BUTTON} data-testid="agent-rename-save">
            {t("agent.conversations.save")}
          </button>
          <button type="button" onClick={() => setEditing(false)} className={SMALL_BUTTON}>
            {t("agent.conversations.cancel")}
          </button>
        </form>
      ) : (
        <div className="flex items-center gap-1">
          <button
            type="button"
            data-testid="agent-conversation-open"
            onClick={onOpen}
            disabled={busy && !current}
            title={busy && !current ? t("agent.conversations.busy") : title}
            className="min-w-0 flex-1 truncate rounded px-1 py-0.5 text-left text-sm hover:bg-slate-200 disabled:cursor-not-allowed disabled:opacity-60 dark:hover:bg-slate-700"
          >
            {title}
          </button>
          <button
            type="button"
            data-testid="agent-rename"
            aria-label={t("agent.conversations.renameOf", { title })}
            onClick={() => {
              setConfirming(false);
              setEditing(true);
            }}
            className={SMALL_BUTTON}
          >
            {t("agent.conversations.rename")}
          </button>
          <button
            type="button"
            data-testid="agent-delete"
            data-confirming={confirming ? "true" : undefined}
            aria-label={
              confirming
                ? t("agent.conversations.confirmDeleteOf", { title })
                : t("agent.conversations.deleteOf", { title })
            }
            disabled={saving || (busy && current)}
            // A first press only arms the button; moving away disarms it.
            onBlur={() => setConfirming(false)}
            onKeyDown={(e) => {
              if (e.key === "Escape" && confirming) {
                e.preventDefault();
                e.stopPropagation();
                setConfirming(false);
              }
            }}
            onClick={async () => {
              if (!confirming) return setConfirming(true);
              await attempt(onDelete);
            }}
            className={
              confirming
                ? "rounded bg-red-600 px-1.5 py-0.5 text-xs font-medium text-white hover:bg-red-700"
                : `${SMALL_BUTTON} text-red-700 dark:text-red-400`
            }
          >
            {confirming ? t("agent.conversations.confirmDelete") : t("agent.conversations.delete")}
          </button>
        </div>
      )}
      {failed && (
        <p role="alert" className="px-1 text-xs text-red-600 dark:text-red-400">
          {t("agent.conversations.actionFailed")}
        </p>
      )}
    </li>
  );
}

export function ConversationList({
  id,
  conversations,
  failed,
  currentId,
  busy,
  onOpen,
  onRename,
  onDelete,
}: {
  id: string;
  conversations: ConversationSummary[] | null;
  failed: boolean;
  currentId: string | null;
  busy: boolean;
  onOpen: (id: string) => void;
  onRename: (id: string, title: string) => Promise<void>;
  onDelete: (id: string) => Promise<void>;
}) {
  const { t } = useI18n();
  return (
    <div
      id={id}
      className="max-h-64 overflow-y-auto border-b border-slate-200 px-2 py-2 dark:border-slate-800"
      data-testid="agent-conversation-list"
    >
      {failed && (
        <p className="px-1 text-xs text-red-600 dark:text-red-400">{t("agent.conversations.loadFailed")}</p>
      )}
      {conversations && !conversations.length && (
        <p className="px-1 text-xs text-slate-500 dark:text-slate-400">{t("agent.conversations.empty")}</p>
      )}
      <ul aria-label={t("agent.conversations.label")} className="space-y-0.5">
        {conversations?.map((c) => (
          <ConversationRow
            key={c.id}
            conversation={c}
            current={c.id === currentId}
            busy={busy}
            onOpen={() => onOpen(c.id)}
            onRename={(title) => onRename(c.id, title)}
            onDelete={() => onDelete(c.id)}
          />
        ))}
      </ul>
    </div>
  );
}
