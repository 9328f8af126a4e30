import { MESSAGE_MAX_CHARS } from "@/features/drawer/contracts";

/** The counter shows from this share of the limit on, so it is there before it matters and not before. */
export const COUNTER_FROM = 0.8;

export type MessageLength = {
  length: number;
  max: number;
  /** Whether the counter is shown at all. */
  showCounter: boolean;
  /** Past the limit: sending is blocked and the limit is named. */
  over: boolean;
};

/** What the composer says about a draft's length; counted as the server counts (trimmed, UTF-16 units). */
export function messageLength(draft: string, max = MESSAGE_MAX_CHARS): MessageLength {
  const length = draft.trim().length;
  return { length, max, showCounter: length >= max * COUNTER_FROM, over: length > max };
}
