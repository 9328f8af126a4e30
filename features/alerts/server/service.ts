import "server-only";
import type { Database } from "@/db";
import { log } from "@/lib/core/process/log";
import { periodicService } from "@/lib/core/process/periodic";
import type { RouteRow } from "@/lib/gateway/gateway";
import type { CounterStore } from "@/lib/pipeline/counters";
import { evaluateAlerts } from "./evaluate";

export const ALERT_EVALUATION_EVERY_MS = 60_000;

export type AlertServiceDeps = {
  db(): Promise<Database>;
  counters(): CounterStore;
  routes(): RouteRow[];
  everyMs?: number;
  /** Told after a pass that fired: the sender looks for the new deliveries at once (not at its next poll). */
  wake?(): void;
};

/**
 * The alert rules' evaluation as a background service of the leader (server/background): every minute, one pass
 * over every enabled rule. One pass at a time; stopping waits for the one running.
 */
export function alertEvaluationService(deps: AlertServiceDeps) {
  return periodicService("alert evaluation", deps.everyMs ?? ALERT_EVALUATION_EVERY_MS, async () => {
    const result = await evaluateAlerts(await deps.db(), new Date(), deps);
    if (result.fired) {
      log.info(result, "alerts fired");
      deps.wake?.();
    }
  });
}
