"use client";

import { useCallback, useRef, useState } from "react";
import { isAbort } from "@/lib/client/api";
import { agentApi } from "./api";
import type { ConversationSummary } from "./types";

/**
 * The user's conversation list, or the ones matching `query` (searched on the server); only the latest request's
 * answer is kept. Rename and delete throw so the row that asked can say it failed.
 */
export function useConversations() {
  const [list, setList] = useState<ConversationSummary[] | null>(null);
  const [failed, setFailed] = useState(false);
  const [query, setQuery] = useState("");
  const [searching, setSearching] = useState(false);
  const queryRef = useRef("");
  const inFlight = useRef<AbortController | null>(null);

  const load = useCallback(async (search: string) => {
    inFlight.current?.abort();
    const controller = new AbortController();
    inFlight.current = controller;
    setSearching(true);
    try {
      const { conversations } = await agentApi.conversations(search, controller.signal);
      setList(conversations);
      setFailed(false);
    } catch (error) {
      if (isAbort(error) || controller.signal.aborted) return;
      setFailed(true);
    } finally {
      if (inFlight.current === controller) {
        inFlight.current = null;
        setSearching(false);
      }
    }
  }, []);

  const refresh = useCallback(() => load(queryRef.current), [load]);

  const search = useCallback(
    (text: string) => {
      queryRef.current = text.trim();
      setQuery(text);
      return load(queryRef.current);
    },
    [load],
  );

  const rename = useCallback(async (id: string, title: string) => {
    const { conversation } = await agentApi.rename(id, title);
    setList((all) => all?.map((c) => (c.id === id ? { ...c, title: conversation.title } : c)) ?? null);
  }, []);

  const remove = useCallback(async (id: string) => {
    await agentApi.remove(id);
    setList((all) => all?.filter((c) => c.id !== id) ?? null);
  }, []);

  return { list, failed, query, searching, refresh, search, rename, remove };
}
