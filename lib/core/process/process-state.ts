/**
 * Process-wide state, anchored once. Next gives every route bundle (and instrumentation) its own copy of each
 * module, so a module-level variable silently splits (the health counters did). Whatever must exist once per
 * process lives in this one map on `globalThis`, each under the name its owner declares: the composition root's
 * container, the failure counters, the key cache, the policy cache, one-shot flags. db/ keeps the one handle it
 * must (it imports nothing from lib/).
 */
const ANCHOR = Symbol.for("tollgate.process");

function slots(): Map<string, unknown> {
  const root = globalThis as { [ANCHOR]?: Map<string, unknown> };
  root[ANCHOR] ??= new Map();
  return root[ANCHOR];
}

/** The process's value under `name`, created by `create` the first time any copy of any module asks. */
export function processSlot<T>(name: string, create: () => T): T {
  const all = slots();
  if (!all.has(name)) all.set(name, create());
  return all.get(name) as T;
}

/** Replaces (or, with `undefined`, removes) the process's value under `name`. */
export function setProcessSlot<T>(name: string, value: T | undefined): void {
  if (value === undefined) slots().delete(name);
  else slots().set(name, value);
}

/** The process's value under `name`, if one was set. */
export function peekProcessSlot<T>(name: string): T | undefined {
  return slots().get(name) as T | undefined;
}
