"use client";

import { useRef, useState } from "react";
import type { FeedbackValue, TurnFeedback } from "@/features/drawer/contracts";
import { toApiError } from "@/lib/client/api";
import { agentApi } from "./api";
import { optimisticFeedback, voteAfterPress } from "./feedback-view";

/**
 * The user's vote on one answer: shown at once (optimistic), saved with PUT / DELETE, and on failure rolled back
 * to what the server last said with the reason shown. `onSaved` hands the stored vote up to the turn.
 */
export function useFeedback(
  turnId: string,
  saved: TurnFeedback | null,
  onSaved: (turnId: string, feedback: TurnFeedback | null) => void,
) {
  // The vote shown while a save runs; null (no override) shows the saved one.
  const [pending, setPending] = useState<{ feedback: TurnFeedback | null } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const busy = useRef(false);
  const current = pending ? pending.feedback : saved;

  const save = async (change: { value: FeedbackValue | null; comment?: string }): Promise<boolean> => {
    if (busy.current) return false;
    busy.current = true;
    setError(null);
    setPending({ feedback: optimisticFeedback(current, change, new Date()) });
    try {
      const { feedback } =
        change.value === null
          ? await agentApi.unvote(turnId)
          : await agentApi.vote(turnId, { value: change.value, comment: change.comment });
      onSaved(turnId, feedback);
      return true;
    } catch (cause) {
      setError(toApiError(cause).message);
      return false;
    } finally {
      busy.current = false;
      setPending(null);
    }
  };

  return {
    current,
    error,
    saving: pending !== null,
    /** Presses a thumb: votes, changes the vote, or (the pressed one) takes it back. Resolves to the new value. */
    press: async (value: FeedbackValue): Promise<FeedbackValue | null | undefined> => {
      const next = voteAfterPress(current, value);
      return (await save({ value: next })) ? next : undefined;
    },
    /** Saves a comment on the current vote (blank removes it). */
    comment: async (text: string): Promise<boolean> =>
      current ? save({ value: current.value, comment: text }) : false,
  };
}
