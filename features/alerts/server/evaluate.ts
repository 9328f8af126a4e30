import "server-only";
import type { Executor } from "@/db";
import type { AlertRule, AlertRuleKind as SchemaRuleKind } from "@/db/schema";
import { log } from "@/lib/core/process/log";
import type { RouteRow } from "@/lib/gateway/gateway";
import type { CounterStore } from "@/lib/pipeline/counters";
import type { RULE_KINDS } from "../contracts";
import { breakerFindings, failureFindings, hourlyCountFindings, keyFindings } from "./findings/calls";
import { type Finding, paramsOf } from "./findings/common";
import { anomalyFindings, budgetFindings } from "./findings/spend";
import { fireAlert } from "./fire";
import { enabledRules } from "./rule-store";

export { FAILURE_WINDOW_MS } from "./findings/calls";
export { median } from "./findings/spend";

// The browser-safe list of kinds is the schema's.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const _sameKinds: Same<(typeof RULE_KINDS)[number], SchemaRuleKind> = true;
void _sameKinds;

/** What evaluation reads besides the database: the budget counters and this instance's routing table. */
export type AlertSources = {
  counters?: () => CounterStore;
  /** The gateway's deployments and their breaker state (Gateway.routingTable). */
  routes?: () => RouteRow[];
};

// ------------------------------------------------------------------------------------------------- run_ceiling

/** A run passing its ceiling, as lib/pipeline's `onRunCeilingCrossed` tells it. */
export type RunCeilingCrossing = {
  tenantId: string;
  scope: string;
  subjectId: string;
  runId: string;
  measure: string;
  used: number;
  ceiling: number;
};

/**
 * Fires the tenant's run_ceiling rules for a run that moved past a share of its ceiling: each threshold once per
 * run and measure. Register it with lib/pipeline's `onRunCeilingCrossed` at start-up.
 */
export async function handleRunCeilingCrossing(db: Executor, event: RunCeilingCrossing): Promise<number> {
  if (!(event.ceiling > 0)) return 0;
  const pct = (event.used / event.ceiling) * 100;
  let fired = 0;
  for (const rule of await enabledRules(db, ["run_ceiling"], event.tenantId)) {
    const p = paramsOf(rule, "run_ceiling");
    for (const threshold of p.thresholds.filter((t) => pct >= t)) {
      const id = await fireAlert(db, {
        tenantId: event.tenantId,
        ruleId: rule.id,
        channelIds: rule.channelIds,
        dedupeKey: `run:${event.runId}:${event.measure}:${threshold}`,
        severity: threshold >= 100 ? "critical" : "warning",
        title: `Run ${event.runId} reached ${threshold}% of its ${event.measure} ceiling`,
        body: `${event.used} of ${event.ceiling} (${event.measure}) used by the run ${event.runId} (${event.scope} ${event.subjectId}).`,
        details: { ...event, threshold },
      });
      if (id) fired++;
    }
  }
  return fired;
}

// ------------------------------------------------------------------------------------------------------ driver

/** The kinds evaluateAlerts checks on its schedule (run_ceiling fires on the pipeline's event instead). */
const SCHEDULED: SchemaRuleKind[] = [
  "budget_threshold",
  "spend_anomaly",
  "failure_rate",
  "breaker_open",
  "unpriced_calls",
  "guardrail_blocks",
  "key_expiring",
];

function findingsOf(
  db: Executor,
  rule: AlertRule,
  now: Date,
  sources: AlertSources,
): Promise<Finding[]> | Finding[] {
  switch (rule.kind) {
    case "budget_threshold":
      return sources.counters ? budgetFindings(db, sources.counters(), rule, now) : [];
    case "spend_anomaly":
      return anomalyFindings(db, rule, now);
    case "failure_rate":
      return failureFindings(db, rule, now);
    case "breaker_open":
      return sources.routes ? breakerFindings(sources.routes(), rule) : [];
    case "unpriced_calls":
      return hourlyCountFindings(db, rule, now, "unpriced");
    case "guardrail_blocks":
      return rule.tenantId ? hourlyCountFindings(db, rule, now, "blocked") : [];
    case "key_expiring":
      return keyFindings(db, rule, now);
    default:
      return [];
  }
}

/** Fires what one rule finds; answers how many alerts fired now (not before). */
async function evaluateRule(
  db: Executor,
  rule: AlertRule,
  now: Date,
  sources: AlertSources,
): Promise<number> {
  let fired = 0;
  for (const f of await findingsOf(db, rule, now, sources)) {
    const id = await fireAlert(db, {
      ...f,
      tenantId: rule.tenantId,
      ruleId: rule.id,
      channelIds: rule.channelIds,
    });
    if (id) fired++;
  }
  return fired;
}

export type EvaluationResult = { rules: number; fired: number; failed: number };

/**
 * Runs every enabled rule once (the worker leader does, every minute): each with one bounded query on the ledger's
 * indexes, the daily rollup, the budget counters or the routing table, firing what it finds once per dedupe key.
 * A rule that fails is logged and the others still run.
 */
export async function evaluateAlerts(
  db: Executor,
  now: Date = new Date(),
  sources: AlertSources = {},
): Promise<EvaluationResult> {
  const rules = await enabledRules(db, SCHEDULED);
  const result: EvaluationResult = { rules: rules.length, fired: 0, failed: 0 };
  for (const rule of rules) {
    try {
      result.fired += await evaluateRule(db, rule, now, sources);
    } catch (error) {
      result.failed++;
      log.error({ err: error, ruleId: rule.id, kind: rule.kind }, "alert rule evaluation failed");
    }
  }
  return result;
}

/** The budget rules of one tenant (the budget step's threshold hook calls it). */
export async function evaluateBudgetRules(
  db: Executor,
  counters: CounterStore,
  tenantId: string,
  now: Date = new Date(),
): Promise<number> {
  let fired = 0;
  for (const rule of await enabledRules(db, ["budget_threshold"], tenantId))
    fired += await evaluateRule(db, rule, now, { counters: () => counters });
  return fired;
}
