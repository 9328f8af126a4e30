// The kinds that watch calls and keys: failure rate, breakers (the routing table), unpriced calls, guardrail
// blocks (the ledger, over its tenant-and-time indexes, an hour at most) and expiring API keys.
import "server-only";
import { and, eq, gt, gte, isNull, lte, ne, sql } from "drizzle-orm";
import type { Executor } from "@/db";
import { type AlertRule, alertEvent, apiKey, sysAgentTurn } from "@/db/schema";
import type { RouteRow } from "@/lib/gateway/gateway";
import type { RuleParams } from "../../contracts";
import { DAY, type Finding, HOUR, iso, MINUTE, paramsOf } from "./common";

/** failure_rate: the window measured, its buckets, and how far back an incident's start is looked for. */
export const FAILURE_WINDOW_MS = 5 * MINUTE;
const FAILURE_LOOKBACK_BUCKETS = 12;

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
export async function failureFindings(db: Executor, rule: AlertRule, now: Date): Promise<Finding[]> {
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
export function breakerFindings(routes: RouteRow[], rule: AlertRule): Finding[] {
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
export async function hourlyCountFindings(
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

export async function keyFindings(db: Executor, rule: AlertRule, now: Date): Promise<Finding[]> {
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
