// The spend kinds: budget thresholds (from the budget counters) and spend anomalies (from the daily rollup).
import "server-only";
import { and, eq, gte, lte, ne, sql } from "drizzle-orm";
import type { Executor } from "@/db";
import { type AlertRule, usageDaily, usageLimit } from "@/db/schema";
import { spentOn } from "@/lib/pipeline/allowances";
import { budgetKey } from "@/lib/pipeline/budget";
import type { CounterStore } from "@/lib/pipeline/counters";
import { fromNano, toNano } from "@/lib/pipeline/money";
import { windowsAt } from "@/lib/pipeline/windows";
import { DAY, type Finding, iso, paramsOf, usdText } from "./common";

// -------------------------------------------------------------------------------------------- budget_threshold

/** The budgets a budget rule covers, and how far each is spent, from the counters the budget step keeps. */
export async function budgetFindings(
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
export async function anomalyFindings(db: Executor, rule: AlertRule, now: Date): Promise<Finding[]> {
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
