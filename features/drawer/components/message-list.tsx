"use client";

import { useEffect, useRef, useState } from "react";
import { useI18n } from "@/components/i18n";
import { AnswerFeedback } from "./answer-feedback";
import { AnswerFooter } from "./answer-footer";
import { AgentCards } from "./cards/agent-card";
import { lastReplaceable, waitsForUser } from "./chat-view";
import { ActionButton, ActionRow, CopyButton, EditMessageForm } from "./message-actions";
import { AssistantBubble, Notice, StoppedMarker, SystemNote, Thinking, UserBubble } from "./message-bubble";
import { ToolCard } from "./tool-card";
import { TurnErrorView } from "./turn-error";
import type { ChatTurn, PendingNotice, TurnFeedback, TurnPart } from "./types";

function PartView({
  part,
  streaming,
  turnId,
}: {
  part: TurnPart;
  streaming: boolean;
  turnId: string | null;
}) {
  switch (part.type) {
    case "user":
      return <UserBubble text={part.text} inputs={part.inputs} />;
    case "text":
      return <AssistantBubble text={part.text} streaming={streaming} />;
    case "display":
      return <AssistantBubble text={part.content} display />;
    case "tool":
      return (
        <>
          <ToolCard tool={part.tool} turnId={turnId} />
          <AgentCards cards={part.tool.cards} />
        </>
      );
    case "notice":
      return <Notice code={part.code} message={part.message} />;
    case "note":
      return <SystemNote text={part.text} />;
  }
}

/** The words of the answer, as copied: the model's text and what tools showed, in order. */
const answerText = (turn: ChatTurn) =>
  turn.parts
    .flatMap((p) => (p.type === "text" ? [p.text] : p.type === "display" ? [p.content] : []))
    .join("\n\n");

export const isStopped = (turn: ChatTurn) =>
  turn.localStatus === "stopped" || turn.footer?.status === "stopped";

type TurnActions = {
  /** This is the conversation's last stored turn and nothing runs: edit and regenerate apply to it. */
  replaceable: boolean;
  onRetry?: () => void;
  onEdit: (text: string) => void;
  onRegenerate: () => void;
  /** The server stored the user's vote on this turn's answer (null: taken back). */
  onFeedback: (turnId: string, feedback: TurnFeedback | null) => void;
};

/** Copy and Regenerate under a finished answer, and the user's vote on it once the server has said what it is. */
function AnswerActions({ turn, answer, actions }: { turn: ChatTurn; answer: string; actions: TurnActions }) {
  const { t } = useI18n();
  const buttons = (
    <>
      {answer && <CopyButton text={answer} label={t("drawer.copyAnswer")} />}
      {actions.replaceable && (
        <ActionButton
          testId="agent-regenerate"
          icon="regenerate"
          label={t("drawer.regenerate")}
          title={t("drawer.regenerateAnswer")}
          onClick={actions.onRegenerate}
        />
      )}
    </>
  );
  // Only an answer with words can be rated, and only once its turn (and the user's vote on it) is known.
  if (!answer || !turn.turnId || turn.feedback === undefined)
    return <ActionRow align="start">{buttons}</ActionRow>;
  return (
    <AnswerFeedback turnId={turn.turnId} saved={turn.feedback} onSaved={actions.onFeedback}>
      {buttons}
    </AnswerFeedback>
  );
}

function TurnView({ turn, actions }: { turn: ChatTurn; actions: TurnActions }) {
  const { t } = useI18n();
  const [editing, setEditing] = useState(false);
  const last = turn.parts[turn.parts.length - 1];
  const streaming = turn.phase === "streaming";
  const answer = answerText(turn);
  if (editing && !actions.replaceable) setEditing(false);
  return (
    <li className="space-y-2" data-turn-id={turn.turnId ?? undefined} data-testid="agent-turn">
      {turn.parts.map((part) =>
        part.type === "user" ? (
          <div key={part.key} className="space-y-1">
            {editing ? (
              <EditMessageForm
                initial={part.text}
                onCancel={() => setEditing(false)}
                onSend={(text) => {
                  setEditing(false);
                  actions.onEdit(text);
                }}
              />
            ) : (
              <>
                <UserBubble text={part.text} inputs={part.inputs} />
                {!streaming && (
                  <ActionRow align="end">
                    <CopyButton text={part.text} label={t("drawer.copyMessage")} />
                    {actions.replaceable && (
                      <ActionButton
                        testId="agent-edit"
                        icon="edit"
                        label={t("drawer.edit")}
                        title={t("drawer.editMessage")}
                        onClick={() => setEditing(true)}
                      />
                    )}
                  </ActionRow>
                )}
              </>
            )}
          </div>
        ) : (
          <PartView key={part.key} part={part} streaming={streaming && part === last} turnId={turn.turnId} />
        ),
      )}
      {/* Not "working" while the turn only waits for the user's Approve / Deny: the card says so. */}
      {streaming && last?.type !== "text" && !waitsForUser(turn) && <Thinking />}
      {isStopped(turn) && <StoppedMarker />}
      {turn.error && <TurnErrorView error={turn.error} onRetry={actions.onRetry} />}
      {!streaming && (answer || actions.replaceable) && (
        <AnswerActions turn={turn} answer={answer} actions={actions} />
      )}
      <AnswerFooter turn={turn} />
    </li>
  );
}

/** The turns of the conversation; keeps the newest text in view unless the reader has scrolled up. */
export function MessageList({
  turns,
  pending = [],
  running,
  onRetry,
  onEdit,
  onRegenerate,
  onFeedback,
}: {
  turns: ChatTurn[];
  /** Notices that arrived while the conversation was idle (a background result), shown after the last turn. */
  pending?: PendingNotice[];
  running: boolean;
  onRetry: (turn: ChatTurn) => void;
  onEdit: (text: string) => void;
  onRegenerate: (turn: ChatTurn) => void;
  onFeedback: (turnId: string, feedback: TurnFeedback | null) => void;
}) {
  const scroller = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  const count = turns.length;

  // A new turn (the user just sent) always scrolls down, even if they had scrolled up to read.
  useEffect(() => {
    if (count) pinned.current = true;
  }, [count]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: every change to the turns (a streamed word) or a notice that arrives may grow the list
  useEffect(() => {
    const el = scroller.current;
    if (el && pinned.current) el.scrollTop = el.scrollHeight;
  }, [turns, pending]);

  const lastTurn = turns[turns.length - 1];
  const replaceable = running ? undefined : lastReplaceable(turns);
  return (
    <div
      ref={scroller}
      onScroll={(e) => {
        const el = e.currentTarget;
        pinned.current = el.scrollHeight - el.scrollTop - el.clientHeight < 48;
      }}
      className="min-h-0 flex-1 overflow-y-auto px-3 py-3"
    >
      <ol className="space-y-4">
        {turns.map((turn) => (
          <TurnView
            key={turn.key}
            turn={turn}
            actions={{
              replaceable: turn === replaceable,
              // Only the latest turn can be retried, and not while another one runs.
              onRetry:
                turn === lastTurn && turn.error && turn.message && !running ? () => onRetry(turn) : undefined,
              onEdit,
              onRegenerate: () => onRegenerate(turn),
              onFeedback,
            }}
          />
        ))}
        {pending.map((notice) => (
          <li key={notice.id} aria-live="polite">
            <SystemNote text={notice.body} pending />
          </li>
        ))}
      </ol>
    </div>
  );
}
