import type { FeedbackValue, TurnFeedback } from "@/features/drawer/contracts";

/** What a press of a thumb asks for: the pressed thumb again takes the vote back (null), the other one changes it. */
export function voteAfterPress(current: TurnFeedback | null, pressed: FeedbackValue): FeedbackValue | null {
  return current?.value === pressed ? null : pressed;
}

/**
 * The vote to show while the server saves it: the new value keeps the comment already there (the server keeps
 * it too), a comment replaces it (blank removes it), null is no vote.
 */
export function optimisticFeedback(
  current: TurnFeedback | null,
  change: { value: FeedbackValue | null; comment?: string },
  now: Date,
): TurnFeedback | null {
  if (change.value === null) return null;
  const comment = change.comment === undefined ? (current?.comment ?? null) : change.comment.trim() || null;
  return { value: change.value, comment, updatedAt: now.toISOString() };
}
