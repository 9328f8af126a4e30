import "server-only";
import type { Database } from "@/db";
import { onBudgetThreshold } from "@/lib/pipeline/budget-alerts";
import type { CounterStore } from "@/lib/pipeline/counters";
import { onRunCeilingCrossed } from "@/lib/pipeline/run-ceiling";
import { evaluateBudgetRules, handleRunCeilingCrossing } from "./evaluate";

/** Where the alert hooks find the database and the budget counters (the container). */
export type AlertHookDeps = { db(): Promise<Database>; counters(): CounterStore };

/**
 * At start-up, in every process that runs calls: a budget moving past 50, 80 or 100 % of a limit evaluates the
 * budget rules of its tenant at once (not at the next minute's evaluation), and a run passing a threshold of its
 * ceilings its run_ceiling rules. Answers the unregistering function.
 */
export function installBudgetAlerts(deps: AlertHookDeps): () => void {
  const budgets = onBudgetThreshold(async ({ tenantId }) =>
    evaluateBudgetRules(await deps.db(), deps.counters(), tenantId),
  );
  // A run's use passing 50, 80 or 100 % of one of its ceilings fires the tenant's run_ceiling rules.
  const runs = onRunCeilingCrossed(async (crossing) => handleRunCeilingCrossing(await deps.db(), crossing));
  return () => {
    budgets();
    runs();
  };
}
