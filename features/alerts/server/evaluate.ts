import "server-only";
import { and, eq, gt, gte, isNull, lte, ne, sql } from "drizzle-orm";
import type { Executor } from "@/db";
import {
  type AlertRule,
  alertEvent,
  apiKey,
  type AlertRuleKind as SchemaRuleKind,
  sysAgentTurn,
  usageDaily,
  usageLimit,
} from "@/db/schema";
import { log } from "@/lib/core/process/log";
import type { RouteRow } from "@/lib/gateway/gateway";
import { spentOn } from "@/lib/pipeline/allowances";
import { budgetKey } from "@/lib/pipeline/budget";
import type { CounterStore } from "@/lib/pipeline/counters";
import { fromNano, toNano } from "@/lib/pipeline/money";
import { windowsAt } from "@/lib/pipeline/windows";
import { type AlertRuleKind, type RULE_KINDS, RULE_PARAMS, type RuleParams } from "../contracts";
import { type AlertFiring, fireAlert } from "./fire";
import { enabledRules } from "./store";

// The browser-safe list of kinds is the schema's.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const _sameKinds: Same<(typeof RULE_KINDS)[number], SchemaRuleKind> = true;
void _sameKinds;

/** What a rule raises, before its rule and channels are added. */
type Finding = Omit<AlertFiring, "ruleId" | "channelIds" | "tenantId"> & { tenantId?: string | null };

/** What evaluation reads besides the database: the budget counters and this instance's routing table. */
export type AlertSources = {
  counters?: () => CounterStore;
  /** The gateway's deployments and their breaker state (Gateway.routingTable). */
  routes?: () => RouteRow[];
};

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** failure_rate: the window measured, its buckets, and how far back an incident's start is looked for. */
export const FAILURE_WINDOW_MS = 5 * MINUTE;
const FAILURE_LOOKBACK_BUCKETS = 12;

const paramsOf = <K extends AlertRuleKind>(rule: AlertRule, kind: K): RuleParams<K> =>
  RULE_PARAMS[kind].parse(rule.params) as RuleParams<K>;
const iso = (ms: number) => new Date(ms).toISOString();
const usdText = (nano: number) => `$${Number(fromNano(nano)).toFixed(2)}`;

// -------------------------------------------------------------------------------------------- budget_threshold

/** The budgets a budget rule covers, and how far each is spent, from the counters the budget step keeps. */
async function budgetFindings(
  db: Executor,
  counters: CounterStore,
  rule: AlertRule,
  now: Date,
): Promise<Finding[]> {
  const tenantId = rule.tenantId;
  if (!tenantId) return [];
  const p = paramsOf(rule, "budget_threshold");
  const limits = await db
    .select()
    .from(usageLimit)
    .where(
      and(
        eq(usageLimit.tenantId, tenantId),
        // An end-user template's spend is on one counter per end user: not a budget an alert can name.
        ne(usageLimit.scope, "end_user_template"),
        p.scope === "any" ? undefined : eq(usageLimit.scope, p.scope),
        p.subjectId ? eq(usageLimit.subjectId, p.subjectId) : undefined,
      ),
    );
  const daily = p.period === "daily";
  const lines = limits
    .map((l) => {
      const hard = daily ? l.dailyHardUsd : l.monthlyHardUsd;
      const soft = daily ? l.dailySoftUsd : l.monthlySoftUsd;
      const limit = p.limit === "hard" ? (hard ?? soft) : (soft ?? hard);
      return { l, limit, kind: limit === hard ? "hard" : "soft" };
    })
    .filter((x): x is typeof x & { limit: string } => x.limit !== null && toNano(x.limit) > 0);
  if (!lines.length) return [];
  const w = windowsAt(now.getTime());
  const window = daily ? w.day : w.month;
  const spent = await spentOn(
    counters,
    tenantId,
    lines.map(({ l }) => budgetKey(l.scope, l.subjectId, p.period, window)),
  );
  const findings: Finding[] = [];
  for (const [i, { l, limit, kind }] of lines.entries()) {
    const used = spent[i] ?? 0;
    const pct = (used / toNano(limit)) * 100;
    for (const threshold of p.thresholds.filter((t) => pct >= t)) {
      const whose = l.scope === "tenant" ? "the tenant" : `${l.scope} ${l.subjectId}`;
      findings.push({
        dedupeKey: `budget:${l.scope}:${l.subjectId}:${p.period}:${window}:${threshold}`,
        severity: threshold >= 100 ? "critical" : threshold >= 80 ? "warning" : "info",
        title: `${threshold}% of the ${p.period} budget of ${whose} spent`,
        body: `${usdText(used)} of the ${kind} limit of ${usdText(toNano(limit))} spent in ${window} (${Math.floor(pct)}%).`,
        details: {
          scope: l.scope,
          subjectId: l.subjectId,
          period: p.period,
          window,
          threshold,
          spentUsd: fromNano(used),
          limitUsd: limit,
          limit: kind,
        },
      });
    }
  }
  return findings;
}

// ------------------------------------------------------------------------------------------------ spend_anomaly

/** The median of the values (the middle one, or the mean of the two middle ones). */
export function median(values: number[]): number {
  if (!values.length) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Today's spend (UTC) against the median day of the 7 before, per tenant, from the daily rollup. */
async function anomalyFindings(db: Executor, rule: AlertRule, now: Date): Promise<Finding[]> {
  const p = paramsOf(rule, "spend_anomaly");
  const today = iso(now.getTime()).slice(0, 10);
  const days = Array.from({ length: 7 }, (_, i) => iso(now.getTime() - (i + 1) * DAY).slice(0, 10));
  const rows = await db
    .select({
      tenantId: usageDaily.tenantId,
      day: usageDaily.day,
      cost: sql<string>`sum(${usageDaily.cost})`,
    })
    .from(usageDaily)
    .where(
      and(
        gte(usageDaily.day, days[6]!),
        lte(usageDaily.day, today),
        rule.tenantId ? eq(usageDaily.tenantId, rule.tenantId) : undefined,
      ),
    )
    .groupBy(usageDaily.tenantId, usageDaily.day);
  const byTenant = new Map<string, Map<string, number>>();
  for (const r of rows) {
    const spend = byTenant.get(r.tenantId) ?? new Map<string, number>();
    spend.set(String(r.day), Number(r.cost));
    byTenant.set(r.tenantId, spend);
  }
  const findings: Finding[] = [];
  for (const [tenantId, spend] of byTenant) {
    const now$ = spend.get(today) ?? 0;
    const usual = median(days.map((d) => spend.get(d) ?? 0));
    if (now$ < p.minSpendUsd || now$ <= p.multiple * usual) continue;
    findings.push({
      tenantId: rule.tenantId ?? tenantId,
      dedupeKey: `anomaly:${tenantId}:${today}`,
      severity: "warning",
      title: rule.tenantId
        ? `Spend today is ${p.multiple}× the usual`
        : `A tenant's spend today is ${p.multiple}× its usual`,
      body: `$${now$.toFixed(2)} spent today (UTC), against a median of $${usual.toFixed(2)} a day over the 7 days before.`,
      details: { tenantId, day: today, spentUsd: now$, medianUsd: usual, multiple: p.multiple },
    });
  }
  // A platform rule's alert belongs to the platform: its deliveries go to the platform's channels.
  return findings.map((f) => ({ ...f, tenantId: rule.tenantId }));
}

// ------------------------------------------------------------------------------------------------- failure_rate

type Bucket = { calls: number; failed: number };
const failing = (b: Bucket | undefined, p: RuleParams<"failure_rate">) =>
  !!b && b.calls >= p.minCalls && (b.failed / b.calls) * 100 >= p.percent;

/**
 * Failed or interrupted calls over all finished calls of the last 5 minutes, per alias. One alert per incident:
 * the incident is the run of failing 5-minute buckets that ends now, keyed on the bucket it started in; a rule
 * that already fired for the alias since then (or, for an incident older than the hour looked back at, in the
 * last day) stays quiet.
 */
async function failureFindings(db: Executor, rule: AlertRule, now: Date): Promise<Finding[]> {
  const p = paramsOf(rule, "failure_rate");
  const bucketMs = FAILURE_WINDOW_MS;
  const current = Math.floor(now.getTime() / bucketMs);
  const from = new Date((current - FAILURE_LOOKBACK_BUCKETS) * bucketMs);
  const recentFrom = sql`${new Date(now.getTime() - FAILURE_WINDOW_MS).toISOString()}::timestamptz`;
  const failed = sql`${sysAgentTurn.status} in ('failed', 'interrupted')`;
  // A literal, not a parameter: the grouping must be the same expression as the selected one.
  const bucket = sql<number>`floor(extract(epoch from ${sysAgentTurn.startedAt}) * 1000 / ${sql.raw(String(bucketMs))})::float8`;
  const rows = await db
    .select({
      alias: sysAgentTurn.requestedModel,
      bucket,
      calls: sql<number>`count(*)::int`,
      failed: sql<number>`(count(*) filter (where ${failed}))::int`,
      recentCalls: sql<number>`(count(*) filter (where ${sysAgentTurn.startedAt} > ${recentFrom}))::int`,
      recentFailed: sql<number>`(count(*) filter (where ${sysAgentTurn.startedAt} > ${recentFrom} and ${failed}))::int`,
    })
    .from(sysAgentTurn)
    .where(
      and(
        rule.tenantId ? eq(sysAgentTurn.tenantId, rule.tenantId) : undefined,
        gte(sysAgentTurn.startedAt, from),
        lte(sysAgentTurn.startedAt, now),
        ne(sysAgentTurn.status, "running"),
        p.alias ? eq(sysAgentTurn.requestedModel, p.alias) : undefined,
      ),
    )
    .groupBy(sysAgentTurn.requestedModel, bucket);
  const aliases = new Map<string, { recent: Bucket; buckets: Map<number, Bucket> }>();
  for (const r of rows) {
    const a = aliases.get(r.alias) ?? { recent: { calls: 0, failed: 0 }, buckets: new Map() };
    a.recent.calls += Number(r.recentCalls);
    a.recent.failed += Number(r.recentFailed);
    a.buckets.set(Number(r.bucket), { calls: Number(r.calls), failed: Number(r.failed) });
    aliases.set(r.alias, a);
  }
  const findings: Finding[] = [];
  for (const [alias, a] of aliases) {
    if (!failing(a.recent, p)) continue;
    // The incident started where the run of failing buckets before the current one begins.
    let start = current;
    while (start - 1 > current - FAILURE_LOOKBACK_BUCKETS && failing(a.buckets.get(start - 1), p)) start--;
    const long = start - 1 <= current - FAILURE_LOOKBACK_BUCKETS;
    const prefix = `failure:${alias}:`;
    const since = long ? new Date(now.getTime() - DAY) : new Date((start - 1) * bucketMs);
    const [earlier] = await db
      .select({ id: alertEvent.id })
      .from(alertEvent)
      .where(
        and(
          eq(alertEvent.ruleId, rule.id),
          sql`starts_with(${alertEvent.dedupeKey}, ${prefix})`,
          // The evaluation's clock (details.at), not the row's insert time: the same instant in production.
          sql`${alertEvent.details}->>'at' >= ${since.toISOString()}`,
        ),
      )
      .limit(1);
    if (earlier) continue;
    const pct = Math.round((a.recent.failed / a.recent.calls) * 1000) / 10;
    findings.push({
      dedupeKey: `${prefix}${iso(start * bucketMs)}`,
      severity: "critical",
      title: `${pct}% of the calls to ${alias} are failing`,
      body: `${a.recent.failed} of ${a.recent.calls} calls to ${alias} in the last 5 minutes failed or were interrupted (threshold ${p.percent}%).`,
      details: {
        alias,
        calls: a.recent.calls,
        failed: a.recent.failed,
        percent: pct,
        since: iso(start * bucketMs),
        at: now.toISOString(),
      },
    });
  }
  return findings;
}

// ------------------------------------------------------------------------------------------------- breaker_open

/** Each deployment whose breaker is open (cooling down) on this instance: once per opening (its end time). */
function breakerFindings(routes: RouteRow[], rule: AlertRule): Finding[] {
  const p = paramsOf(rule, "breaker_open");
  const seen = new Map<string, Finding>();
  for (const r of routes) {
    if (r.state !== "cooling" || !r.coolingUntil) continue;
    if (p.provider && r.provider !== p.provider) continue;
    const deployment = `${r.provider}/${r.model}${r.credential ? ` (${r.credential})` : ""}`;
    const key = `breaker:${deployment}:${r.coolingUntil}`;
    const known = seen.get(key);
    if (known) {
      (known.details!.aliases as string[]).push(r.alias);
      continue;
    }
    seen.set(key, {
      dedupeKey: key,
      severity: "warning",
      title: `Circuit breaker open: ${deployment}`,
      body: `Calls to ${deployment} failed past the breaker's threshold: it is skipped (the next candidate serves) until ${r.coolingUntil}, then probed.`,
      details: {
        provider: r.provider,
        model: r.model,
        credential: r.credential,
        coolingUntil: r.coolingUntil,
        aliases: [r.alias],
      },
    });
  }
  return [...seen.values()];
}

// ------------------------------------------------------------------------------ unpriced_calls, guardrail_blocks

/** Calls of the last hour matching `where`, per tenant (or the rule's tenant), past the threshold: once per hour. */
async function hourlyCountFindings(
  db: Executor,
  rule: AlertRule,
  now: Date,
  what: "unpriced" | "blocked",
): Promise<Finding[]> {
  const threshold =
    what === "unpriced"
      ? paramsOf(rule, "unpriced_calls").threshold
      : paramsOf(rule, "guardrail_blocks").threshold;
  const rows = await db
    .select({ tenantId: sysAgentTurn.tenantId, calls: sql<number>`count(*)::int` })
    .from(sysAgentTurn)
    .where(
      and(
        rule.tenantId ? eq(sysAgentTurn.tenantId, rule.tenantId) : undefined,
        gt(sysAgentTurn.startedAt, new Date(now.getTime() - HOUR)),
        lte(sysAgentTurn.startedAt, now),
        what === "unpriced" ? eq(sysAgentTurn.costStatus, "unpriced") : eq(sysAgentTurn.guardrail, "blocked"),
      ),
    )
    .groupBy(sysAgentTurn.tenantId);
  const hour = iso(Math.floor(now.getTime() / HOUR) * HOUR).slice(0, 13);
  return rows
    .filter((r) => Number(r.calls) > threshold)
    .map((r) => ({
      dedupeKey: `${what}:${r.tenantId}:${hour}`,
      severity: "warning" as const,
      title:
        what === "unpriced"
          ? `${r.calls} calls served without a price in the last hour`
          : `${r.calls} calls blocked by guardrails in the last hour`,
      body:
        what === "unpriced"
          ? `Their cost is unknown (counted 0): set a price in the gateway config, or an assumed price on the Limits page. Threshold: ${threshold}.`
          : `The tenant's guardrail rules blocked ${r.calls} calls since ${iso(now.getTime() - HOUR)} (threshold ${threshold}).`,
      details: { tenantId: r.tenantId, calls: Number(r.calls), threshold, hour },
    }));
}

// ------------------------------------------------------------------------------------------------- key_expiring

async function keyFindings(db: Executor, rule: AlertRule, now: Date): Promise<Finding[]> {
  if (!rule.tenantId) return [];
  const { days } = paramsOf(rule, "key_expiring");
  const keys = await db
    .select({ id: apiKey.id, name: apiKey.name, prefix: apiKey.prefix, expiresAt: apiKey.expiresAt })
    .from(apiKey)
    .where(
      and(
        eq(apiKey.tenantId, rule.tenantId),
        isNull(apiKey.revokedAt),
        gt(apiKey.expiresAt, now),
        lte(apiKey.expiresAt, new Date(now.getTime() + days * DAY)),
      ),
    );
  return keys.map((k) => ({
    dedupeKey: `key:${k.id}:${k.expiresAt!.toISOString()}`,
    severity: "warning" as const,
    title: `API key “${k.name}” expires ${k.expiresAt!.toISOString().slice(0, 10)}`,
    body: `The key ${k.prefix}… expires at ${k.expiresAt!.toISOString()}: rotate it on the Keys page before its callers are refused.`,
    details: { keyId: k.id, name: k.name, expiresAt: k.expiresAt!.toISOString() },
  }));
}

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
