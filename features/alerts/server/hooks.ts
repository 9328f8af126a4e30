import "server-only";
import type { Database } from "@/db";
import { onBudgetThreshold } from "@/lib/pipeline/budget-alerts";
import type { CounterStore } from "@/lib/pipeline/counters";
import { evaluateBudgetRules } from "./evaluate";

/** Where the alert hooks find the database and the budget counters (the container). */
export type AlertHookDeps = { db(): Promise<Database>; counters(): CounterStore };

/**
 * At start-up, in every process that runs calls: a budget moving past 50, 80 or 100 % of a limit evaluates the
 * budget rules of its tenant at once (not at the next minute's evaluation). Answers the unregistering function.
 */
export function installBudgetAlerts(deps: AlertHookDeps): () => void {
  return onBudgetThreshold(async ({ tenantId }) =>
    evaluateBudgetRules(await deps.db(), deps.counters(), tenantId),
  );
}
