"use client";

import { useEffect, useRef, useState } from "react";
import { useI18n } from "@/components/i18n";
import { plainTitle } from "@/lib/core/text/plain-title";
import type { Locale, MessageKey, Translate } from "@/lib/i18n/messages";
import { type DateGroup, groupByDate } from "./history-groups";
import type { ConversationSummary } from "./types";

/**
 * The server names an untitled conversation "New conversation"; show that in the reader's language. Titles
 * read as plain text, also ones stored with markdown before titles were stripped.
 */
export function conversationTitle(c: ConversationSummary | undefined, t: Translate): string {
  if (!c?.title || c.title === "New conversation") return t("agent.conversations.untitled");
  return plainTitle(c.title, 200) || c.title;
}

const GROUP_LABEL: Record<DateGroup, MessageKey> = {
  today: "drawer.group.today",
  yesterday: "drawer.group.yesterday",
  week: "drawer.group.week",
  older: "drawer.group.older",
};

/** The time of day for today and yesterday, the date for anything older. */
function whenLabel(iso: string, group: DateGroup, locale: Locale): string {
  const when = new Date(iso);
  const tag = locale === "zh" ? "zh-CN" : "en-GB";
  return group === "today" || group === "yesterday"
    ? when.toLocaleTimeString(tag, { hour: "2-digit", minute: "2-digit" })
    : when.toLocaleDateString(tag, { day: "numeric", month: "short" });
}

const SMALL_BUTTON =
  "rounded px-1.5 py-0.5 text-xs hover:bg-slate-200 disabled:cursor-not-allowed disabled:opacity-40 dark:hover:bg-slate-700";

function ConversationRow({
  conversation,
  when,
  current,
  busy,
  onOpen,
  onRename,
  onDelete,
}: {
  conversation: ConversationSummary;
  when: string;
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
            className="flex min-w-0 flex-1 items-baseline gap-2 rounded px-1 py-0.5 text-left text-sm hover:bg-slate-200 disabled:cursor-not-allowed disabled:opacity-60 dark:hover:bg-slate-700"
          >
            <span className="min-w-0 flex-1 truncate">{title}</span>
            <time
              dateTime={conversation.updatedAt}
              className="shrink-0 text-[0.7rem] text-slate-500 tabular-nums dark:text-slate-400"
            >
              {when}
            </time>
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

/** How long typing pauses before the search goes to the server. */
const SEARCH_DELAY_MS = 250;

/** The history: a search box, then the conversations grouped by date (Today, Yesterday, Previous 7 days, Older). */
export function ConversationList({
  id,
  conversations,
  failed,
  query,
  searching,
  currentId,
  busy,
  onSearch,
  onOpen,
  onRename,
  onDelete,
}: {
  id: string;
  conversations: ConversationSummary[] | null;
  failed: boolean;
  query: string;
  searching: boolean;
  currentId: string | null;
  busy: boolean;
  onSearch: (text: string) => void;
  onOpen: (id: string) => void;
  onRename: (id: string, title: string) => Promise<void>;
  onDelete: (id: string) => Promise<void>;
}) {
  const { t, locale } = useI18n();
  const [draft, setDraft] = useState(query);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const now = new Date();
  const groups = groupByDate(conversations ?? [], (c) => new Date(c.updatedAt), now);
  const searched = query.trim();
  return (
    <div
      id={id}
      className="border-b border-slate-200 dark:border-slate-800"
      data-testid="agent-conversation-list"
    >
      <search className="px-3 pt-1 pb-2">
        <label htmlFor="agent-history-search" className="sr-only">
          {t("drawer.history.search")}
        </label>
        <input
          id="agent-history-search"
          type="search"
          data-testid="agent-history-search"
          value={draft}
          maxLength={200}
          placeholder={t("drawer.history.searchPlaceholder")}
          onChange={(e) => {
            const text = e.target.value;
            setDraft(text);
            clearTimeout(timer.current);
            timer.current = setTimeout(() => onSearch(text), SEARCH_DELAY_MS);
          }}
          onKeyDown={(e) => {
            if (e.key === "Enter") {
              e.preventDefault();
              clearTimeout(timer.current);
              onSearch(draft);
            } else if (e.key === "Escape" && draft) {
              // Clears the search first; a second Escape closes the drawer.
              e.preventDefault();
              e.stopPropagation();
              setDraft("");
              clearTimeout(timer.current);
              onSearch("");
            }
          }}
          className="w-full rounded-md border border-slate-300 bg-white px-2 py-1 text-sm placeholder:text-slate-400 focus:border-indigo-500 focus:outline-none focus:ring-2 focus:ring-indigo-500/30 dark:border-slate-700 dark:bg-slate-900"
        />
      </search>
      <div className="max-h-72 overflow-y-auto px-2 pb-2" aria-busy={searching || undefined}>
        {failed && (
          <p className="px-1 text-xs text-red-600 dark:text-red-400">{t("agent.conversations.loadFailed")}</p>
        )}
        {conversations && !conversations.length && (
          <p data-testid="agent-history-empty" className="px-1 text-xs text-slate-500 dark:text-slate-400">
            {searched ? t("drawer.history.noMatch", { q: searched }) : t("agent.conversations.empty")}
          </p>
        )}
        {!conversations && searching && (
          <p className="px-1 text-xs text-slate-500 dark:text-slate-400">{t("drawer.history.searching")}</p>
        )}
        <div>
          {groups.map(({ group, items }) => (
            <section key={group} aria-labelledby={`agent-history-${group}`} className="pt-1">
              <h3
                id={`agent-history-${group}`}
                data-testid="agent-history-group"
                className="px-1 pt-1 pb-0.5 text-[0.7rem] font-semibold tracking-wide text-slate-500 uppercase dark:text-slate-400"
              >
                {t(GROUP_LABEL[group])}
              </h3>
              <ul className="space-y-0.5">
                {items.map((c) => (
                  <ConversationRow
                    key={c.id}
                    conversation={c}
                    when={whenLabel(c.updatedAt, group, locale)}
                    current={c.id === currentId}
                    busy={busy}
                    onOpen={() => onOpen(c.id)}
                    onRename={(title) => onRename(c.id, title)}
                    onDelete={() => onDelete(c.id)}
                  />
                ))}
              </ul>
            </section>
          ))}
        </div>
      </div>
    </div>
  );
}
