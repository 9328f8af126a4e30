// The moment a budget moves past a share of its limit, told to whoever listens (the alerts feature registers at
// start-up: lib does not import features). Fire-and-forget: a call is never slowed or failed by it.
import "server-only";
import { log } from "@/lib/core/process/log";

/** The shares of a budget's limit whose crossing is told, in percent. */
export const BUDGET_ALERT_MARKS = [50, 80, 100] as const;
/** A mark already told for a budget counter is told again only after this long (an evaluation may have failed). */
export const BUDGET_ALERT_THROTTLE_MS = 60_000;
/** Counters remembered at most: past it the memory starts over (a few extra notices, never a missed one). */
const REMEMBERED = 10_000;

export type BudgetCrossing = { tenantId: string; key: string; percent: number; mark: number };
type Listener = (crossing: BudgetCrossing) => Promise<unknown> | unknown;

let listener: Listener | null = null;
/** Per counter and limit: the highest mark told and when. */
const told = new Map<string, { mark: number; at: number }>();

/** Sets the one listener (start-up); answers a function that removes it. */
export function onBudgetThreshold(next: Listener): () => void {
  listener = next;
  told.clear();
  return () => {
    if (listener === next) listener = null;
  };
}

/**
 * What the budget step calls with each budget's value after its reservation: past 50, 80 or 100 % of the limit,
 * the listener hears of it, once per counter and mark per minute in this process, however hot the budget.
 */
export function noticeBudgetUse(
  tenantId: string,
  key: string,
  usedNano: number,
  limitNano: number,
  now: number = Date.now(),
): void {
  if (!listener || !(limitNano > 0)) return;
  const percent = (usedNano / limitNano) * 100;
  const mark = BUDGET_ALERT_MARKS.filter((m) => percent >= m).at(-1);
  if (mark === undefined) return;
  const id = `${tenantId}|${key}|${limitNano}`;
  const before = told.get(id);
  if (before && before.mark >= mark && now - before.at < BUDGET_ALERT_THROTTLE_MS) return;
  if (told.size >= REMEMBERED) told.clear();
  told.set(id, { mark, at: now });
  const tell = listener;
  void Promise.resolve()
    .then(() => tell({ tenantId, key, percent, mark }))
    .catch((error: unknown) => log.warn({ err: error, tenantId, key }, "budget threshold listener failed"));
}
