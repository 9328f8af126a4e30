"use client";

import { type RefObject, useCallback, useEffect, useRef, useState } from "react";
import { useI18n } from "@/components/i18n";
import type { MessageInputs } from "@/features/drawer/contracts";
import { Composer } from "./composer";
import { ConversationList, conversationTitle } from "./conversation-list";
import { useAgentDrawer } from "./drawer-context";
import { DRAWER_ID } from "./drawer-toggle";
import { EmptyState } from "./empty-state";
import { MessageList } from "./message-list";
import { ModelBar } from "./model-bar";
import { TurnErrorView } from "./turn-error";
import type { ChatTurn, ReplaceMode } from "./types";
import { useAgentChat } from "./use-agent-chat";
import { useAttachments } from "./use-attachments";
import { useConversations } from "./use-conversations";
import { useModels } from "./use-models";

const HEADER_BUTTON =
  "rounded-md border border-slate-300 px-2 py-1 text-xs hover:bg-slate-100 disabled:cursor-not-allowed disabled:opacity-50 dark:border-slate-700 dark:hover:bg-slate-800";

/** What the live region reads once an answer is complete: its text, and how it ended if not normally. */
function announcementOf(turn: ChatTurn | undefined, t: ReturnType<typeof useI18n>["t"]): string {
  if (turn?.phase !== "done") return "";
  const text = turn.parts
    .flatMap((p) => (p.type === "text" ? [p.text] : p.type === "display" ? [p.content] : []))
    .join("\n");
  const stopped = turn.localStatus === "stopped" || turn.footer?.status === "stopped";
  return [text, stopped ? t("agent.status.stopped") : ""].filter(Boolean).join(" ");
}

function CloseButton() {
  const { t } = useI18n();
  const { setOpen } = useAgentDrawer();
  return (
    <button
      type="button"
      aria-label={t("agent.close")}
      title={t("agent.close")}
      onClick={() => setOpen(false)}
      className="rounded-md px-2 py-1 text-lg leading-none text-slate-500 hover:bg-slate-100 hover:text-slate-800 dark:text-slate-400 dark:hover:bg-slate-800 dark:hover:text-slate-100"
    >
      ×
    </button>
  );
}

/** The chat of one user in one tenant; remounted (by key) when either changes. */
function DrawerBody({ scope, inputRef }: { scope: string; inputRef: RefObject<HTMLTextAreaElement | null> }) {
  const { t } = useI18n();
  const models = useModels();
  const conversations = useConversations();
  const { refresh } = conversations;
  const chat = useAgentChat({ scope, onSettled: refresh });
  const attachments = useAttachments();
  const [listOpen, setListOpen] = useState(false);
  const [dragging, setDragging] = useState(false);

  useEffect(() => {
    void refresh();
  }, [refresh]);

  // A conversation asked for from outside the drawer (the home's list); after the remembered one is restored.
  const { wanted } = useAgentDrawer();
  const { openConversation } = chat;
  useEffect(() => {
    if (wanted) void openConversation(wanted.id);
  }, [wanted, openConversation]);

  const focusInput = useCallback(() => inputRef.current?.focus(), [inputRef]);
  const send = (
    text: string,
    options: { retryOf?: ChatTurn; mode?: ReplaceMode; inputs?: MessageInputs } = {},
  ) => {
    void chat.send(text, models.selected, {
      retryOf: options.retryOf?.key,
      mode: options.mode,
      inputs: options.inputs,
    });
    focusInput();
  };
  const hasFiles = (e: React.DragEvent) => e.dataTransfer.types.includes("Files");

  const current = conversations.list?.find((c) => c.id === chat.conversationId);
  const title = chat.conversationId ? conversationTitle(current, t) : t("agent.conversations.untitled");
  const streamed = chat.turns.find((turn) => turn.key === chat.streamedKey);

  return (
    // Files dropped anywhere on the drawer attach to the next message.
    // biome-ignore lint/a11y/noStaticElementInteractions: dropping is the pointer's shortcut; the paperclip button is the keyboard's way
    <div
      data-testid="agent-drop-zone"
      data-dragging={dragging || undefined}
      className="relative flex min-h-0 flex-1 flex-col"
      onDragEnter={(e) => {
        if (hasFiles(e)) setDragging(true);
      }}
      onDragOver={(e) => {
        if (!hasFiles(e)) return;
        e.preventDefault();
        e.dataTransfer.dropEffect = "copy";
      }}
      onDragLeave={(e) => {
        if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setDragging(false);
      }}
      onDrop={(e) => {
        if (!hasFiles(e)) return;
        e.preventDefault();
        setDragging(false);
        attachments.add([...e.dataTransfer.files]);
        focusInput();
      }}
    >
      {dragging && (
        <div
          aria-hidden="true"
          className="pointer-events-none absolute inset-2 z-20 flex items-center justify-center rounded-lg border-2 border-dashed border-indigo-400 bg-indigo-50/90 text-sm font-medium text-indigo-800 dark:bg-indigo-950/90 dark:text-indigo-100"
        >
          {t("context.dropFiles")}
        </div>
      )}
      <div className="flex items-center gap-2 px-3 pt-3 pb-2">
        <h2 className="text-sm font-semibold text-slate-900 dark:text-slate-100">{t("agent.title")}</h2>
        <div className="ml-auto flex items-center gap-1">
          <button
            type="button"
            data-testid="agent-new-conversation"
            disabled={chat.running}
            title={chat.running ? t("agent.conversations.busy") : undefined}
            onClick={() => {
              chat.newConversation();
              setListOpen(false);
              focusInput();
            }}
            className={HEADER_BUTTON}
          >
            {t("agent.conversations.new")}
          </button>
          <CloseButton />
        </div>
      </div>
      <div className="px-3 pb-2">
        <button
          type="button"
          data-testid="agent-conversations-toggle"
          aria-expanded={listOpen}
          aria-controls="agent-conversations"
          onClick={() => {
            if (!listOpen) void refresh();
            setListOpen(!listOpen);
          }}
          className="flex w-full items-center gap-2 rounded-md border border-slate-300 px-2 py-1 text-left text-sm hover:bg-slate-100 dark:border-slate-700 dark:hover:bg-slate-800"
        >
          <span className="sr-only">{t("agent.conversations.toggle")}: </span>
          <span className="min-w-0 flex-1 truncate" data-testid="agent-conversation-title">
            {title}
          </span>
          <span aria-hidden="true" className="text-xs text-slate-500">
            {listOpen ? "▲" : "▼"}
          </span>
        </button>
      </div>
      {listOpen && (
        <ConversationList
          id="agent-conversations"
          conversations={conversations.list}
          failed={conversations.failed}
          query={conversations.query}
          searching={conversations.searching}
          onSearch={(text) => void conversations.search(text)}
          currentId={chat.conversationId}
          busy={chat.running}
          onOpen={(id) => {
            setListOpen(false);
            if (id !== chat.conversationId) void chat.openConversation(id);
            focusInput();
          }}
          onRename={conversations.rename}
          onDelete={async (id) => {
            await conversations.remove(id);
            if (id === chat.conversationId) chat.newConversation();
          }}
        />
      )}
      <ModelBar
        models={models.models}
        selected={models.selected}
        current={models.current}
        failed={models.failed}
        onChoose={models.choose}
      />
      <div className="flex min-h-0 flex-1 flex-col border-t border-slate-200 dark:border-slate-800">
        {chat.loading ? (
          <p className="px-4 py-6 text-sm text-slate-500 dark:text-slate-400">{t("agent.loading")}</p>
        ) : chat.loadError ? (
          <div className="px-3 py-3">
            <TurnErrorView
              error={chat.loadError}
              onRetry={
                chat.conversationId ? () => void chat.openConversation(chat.conversationId!) : undefined
              }
            />
          </div>
        ) : chat.turns.length ? (
          <MessageList
            turns={chat.turns}
            pending={chat.pending}
            running={chat.running}
            onRetry={(turn) =>
              turn.message &&
              // A refused edit or regenerate never started: retrying does the same again.
              send(turn.message, {
                retryOf: turn,
                mode: turn.turnId ? undefined : turn.mode,
                inputs: turn.inputs,
              })
            }
            onEdit={(text) => send(text, { mode: "edit" })}
            onRegenerate={(turn) => turn.message && send(turn.message, { mode: "regenerate" })}
            onFeedback={chat.setFeedback}
          />
        ) : (
          <EmptyState onPick={(text) => send(text)} disabled={chat.running} />
        )}
      </div>
      <div aria-live="polite" className="sr-only" data-testid="agent-live">
        {announcementOf(streamed, t)}
      </div>
      <Composer
        inputRef={inputRef}
        running={chat.running}
        disabled={chat.loading}
        attachments={attachments}
        onSend={(text, inputs) => send(text, { inputs })}
        onStop={() => void chat.stop()}
      />
    </div>
  );
}

/**
 * The drawer opens below the sticky top bar (and under its menus, z-10 < z-20), whose height changes as it
 * wraps on narrow screens, so the button that opened it and the account menu stay usable.
 */
function useTopBarHeight(active: boolean): number {
  const [height, setHeight] = useState(0);
  useEffect(() => {
    const bar = document.getElementById("top-bar");
    if (!active || !bar) return;
    const measure = () => setHeight(bar.getBoundingClientRect().height);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(bar);
    return () => observer.disconnect();
  }, [active]);
  return height;
}

/** The assistant panel on the right (full width on small screens), on every signed-in page. */
export function AgentDrawer({ scope, hasTenant }: { scope: string; hasTenant: boolean }) {
  const { t } = useI18n();
  const { open, reason, setOpen, toggleRef, asks } = useAgentDrawer();
  const panelRef = useRef<HTMLElement>(null);
  const inputRef = useRef<HTMLTextAreaElement>(null);
  // Nothing is fetched until the drawer is first opened; after that it stays mounted so a turn keeps
  // streaming while the drawer is closed.
  const [started, setStarted] = useState(false);
  if (open && !started) setStarted(true);
  const top = useTopBarHeight(open);

  // biome-ignore lint/correctness/useExhaustiveDependencies: each "Ask the assistant" brings focus to the composer
  useEffect(() => {
    if (reason !== "user") return;
    if (open) inputRef.current?.focus();
    else {
      const active = document.activeElement;
      if (!active || active === document.body || panelRef.current?.contains(active))
        toggleRef.current?.focus();
    }
  }, [open, reason, toggleRef, asks]);

  return (
    <aside
      id={DRAWER_ID}
      ref={panelRef}
      data-testid="agent-drawer"
      aria-label={t("agent.drawerLabel")}
      hidden={!open}
      style={{ top }}
      onKeyDown={(e) => {
        if (e.key === "Escape" && !e.defaultPrevented) {
          e.preventDefault();
          setOpen(false);
        }
      }}
      className="fixed right-0 bottom-0 z-10 flex w-full flex-col border-t border-l border-slate-200 bg-white text-slate-900 shadow-2xl sm:w-[28rem] dark:border-slate-800 dark:bg-slate-950 dark:text-slate-100"
    >
      {!started ? null : hasTenant ? (
        <DrawerBody key={scope} scope={scope} inputRef={inputRef} />
      ) : (
        <>
          <div className="flex items-center gap-2 px-3 pt-3 pb-2">
            <h2 className="text-sm font-semibold">{t("agent.title")}</h2>
            <div className="ml-auto">
              <CloseButton />
            </div>
          </div>
          <p data-testid="agent-no-tenant" className="px-4 py-6 text-sm text-slate-600 dark:text-slate-300">
            {t("agent.noTenant")}
          </p>
        </>
      )}
    </aside>
  );
}
