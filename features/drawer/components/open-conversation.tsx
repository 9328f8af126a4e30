"use client";

import type { ReactNode } from "react";
import { useAgentDrawer } from "./drawer-context";

/** A button that opens the drawer on one of the user's conversations (the home lists their latest). */
export function OpenConversationButton(props: {
  conversationId: string;
  children: ReactNode;
  className?: string;
  testId?: string;
}) {
  const { openConversation } = useAgentDrawer();
  return (
    <button
      type="button"
      data-testid={props.testId}
      data-conversation-id={props.conversationId}
      onClick={() => openConversation(props.conversationId)}
      className={props.className}
    >
      {props.children}
    </button>
  );
}

/** A button that opens the drawer (on the conversation it last showed, or a new one). */
export function OpenDrawerButton(props: { children: ReactNode; className?: string; testId?: string }) {
  const { setOpen } = useAgentDrawer();
  return (
    <button
      type="button"
      data-testid={props.testId}
      onClick={() => setOpen(true)}
      className={props.className}
    >
      {props.children}
    </button>
  );
}
