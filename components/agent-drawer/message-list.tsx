"use client";

import { useEffect, useRef } from "react";
import { AnswerFooter } from "./answer-footer";
import { AssistantBubble, Notice, SystemNote, Thinking, UserBubble } from "./message-bubble";
import { ToolCard } from "./tool-card";
import { TurnErrorView } from "./turn-error";
import type { ChatTurn, TurnPart } from "./types";

function PartView({ part, streaming }: { part: TurnPart; streaming: boolean }) {
  switch (part.type) {
    case "user":
      return <UserBubble text={part.text} />;
    case "text":
      return <AssistantBubble text={part.text} streaming={streaming} />;
    case "display":
      return <AssistantBubble text={part.content} display />;
    case "tool":
      return <ToolCard tool={part.tool} />;
    case "notice":
      return <Notice code={part.code} message={part.message} />;
    case "note":
      return <SystemNote text={part.text} />;
  }
}

function TurnView({ turn, onRetry }: { turn: ChatTurn; onRetry?: () => void }) {
  const last = turn.parts[turn.parts.length - 1];
  const streaming = turn.phase === "streaming";
  return (
    <li className="space-y-2" data-turn-id={turn.turnId ?? undefined}>
      {turn.parts.map((part) => (
        <PartView key={part.key} part={part} streaming={streaming && part === last} />
      ))}
      {streaming && last?.type !== "text" && <Thinking />}
      {turn.error && <TurnErrorView error={turn.error} onRetry={onRetry} />}
      <AnswerFooter turn={turn} />
    </li>
  );
}

/** The turns of the conversation; keeps the newest text in view unless the reader has scrolled up. */
export function MessageList({
  turns,
  running,
  onRetry,
}: {
  turns: ChatTurn[];
  running: boolean;
  onRetry: (turn: ChatTurn) => void;
}) {
  const scroller = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  const count = turns.length;

  // A new turn (the user just sent) always scrolls down, even if they had scrolled up to read.
  useEffect(() => {
    if (count) pinned.current = true;
  }, [count]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: every change to the turns (a streamed word) may grow the list
  useEffect(() => {
    const el = scroller.current;
    if (el && pinned.current) el.scrollTop = el.scrollHeight;
  }, [turns]);

  const lastTurn = turns[turns.length - 1];
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
            onRetry={
              // Only the latest turn can be retried, and not while another one runs.
              turn === lastTurn && turn.error && turn.message && !running ? () => onRetry(turn) : undefined
            }
          />
        ))}
      </ol>
    </div>
  );
}
