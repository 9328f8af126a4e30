/** Where a conversation falls in the history list, by its last activity in the reader's own calendar. */
export type DateGroup = "today" | "yesterday" | "week" | "older";

export const DATE_GROUPS: DateGroup[] = ["today", "yesterday", "week", "older"];

const startOfDay = (d: Date) => new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();

/** Today, yesterday, the 7 days before today (after yesterday), or older; local midnight is the edge. */
export function dateGroupOf(when: Date, now: Date): DateGroup {
  const today = startOfDay(now);
  const day = startOfDay(when);
  if (day >= today) return "today";
  // Calendar days, not 24-hour spans: daylight-saving days are 23 or 25 hours long.
  const yesterday = startOfDay(new Date(now.getFullYear(), now.getMonth(), now.getDate() - 1));
  if (day >= yesterday) return "yesterday";
  const weekAgo = startOfDay(new Date(now.getFullYear(), now.getMonth(), now.getDate() - 7));
  return day >= weekAgo ? "week" : "older";
}

/** The items in groups, newest group first, each group keeping the items' order; empty groups left out. */
export function groupByDate<T>(
  items: T[],
  whenOf: (item: T) => Date,
  now: Date,
): { group: DateGroup; items: T[] }[] {
  const groups = new Map<DateGroup, T[]>();
  for (const item of items) {
    const group = dateGroupOf(whenOf(item), now);
    groups.set(group, [...(groups.get(group) ?? []), item]);
  }
  return DATE_GROUPS.filter((g) => groups.has(g)).map((group) => ({ group, items: groups.get(group)! }));
}
