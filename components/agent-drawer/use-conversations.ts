"use client";

import { useCallback, useState } from "react";
import { agentApi } from "./api";
import type { ConversationSummary } from "./types";

/** The user's conversation list; rename and delete throw so the row that asked can say it failed. */
export function useConversations() {
  const [list, setList] = useState<ConversationSummary[] | null>(null);
  const [failed, setFailed] = useState(false);

  const refresh = useCallback(async () => {
    try {
      const { conversations } = await agentApi.conversations();
      setList(conversations);
      setFailed(false);
    } catch {
      setFailed(true);
    }
  }, []);

  const rename = useCallback(async (id: string, title: string) => {
    const { conversation } = await agentApi.rename(id, title);
    setList((all) => all?.map((c) => (c.id === id ? { ...c, title: conversation.title } : c)) ?? null);
  }, []);

  const remove = useCallback(async (id: string) => {
    await agentApi.remove(id);
    setList((all) => all?.filter((c) => c.id !== id) ?? null);
  }, []);

  return { list, failed, refresh, rename, remove };
}
