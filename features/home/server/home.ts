import "server-only";
import type { Database } from "@/db";
import type { ChartDef, MetricDef, PageQuery } from "@/features/admin-tables/contracts";
import type { PageCatalog } from "@/features/admin-tables/server";
import { type FiredAlertRow, listFiredAlerts } from "@/features/alerts/server";
import type { LimitView } from "@/features/limits/contracts";
import { readLimitView } from "@/features/limits/server";
import { isTenantAdmin } from "@/lib/auth/access";
import type { UserContext } from "@/lib/auth/users";
import { forbidden } from "@/lib/core/errors/app-error";
import { normalizeDecimal } from "@/lib/core/format/money";
import { listConversations } from "@/lib/governance/conversations";
import { meter } from "@/lib/governance/meter";
import type { CounterStore } from "@/lib/pipeline/counters";
import { windowsAt } from "@/lib/pipeline/windows";

/** What the home reads from: the app's database, the budget counters, and the admin pages' own providers. */
export type HomeSources = { db: Database; counters: CounterStore; pages: PageCatalog };

/** Calls and spend of a period: `cost` sums the priced calls only; `unpriced` calls have no known cost. */
export type PeriodUsage = { requests: number; failures: number; cost: string; unpriced: number };

/** The UTC day and month the home's figures cover, as the pages' date filters take them (YYYY-MM-DD). */
export type HomeDays = { today: string; monthStart: string };

export type AdminHome = HomeDays & {
  usage: { today: PeriodUsage; month: PeriodUsage };
  /** The tenant's own limits with what its budget counters hold spent (the limits page's view); null: none. */
  budget: LimitView | null;
  /** Today's five costliest models (the cost dashboard's "cost by model", from the daily rollups). */
  topModels: { model: string; cost: string }[];
  /** Today's five costliest API keys (the cost dashboard's "cost by API key", from the ledger's closed rows). */
  topKeys: { id: string; label: string; cost: string }[];
  /** Alerts the tenant's rules fired in the last 24 hours. */
  alerts: { count: number; capped: boolean; latest: FiredAlertRow[] };
};

export type MemberHome = HomeDays & {
  /** The member's own calls (every source but `api`, which their budget does not cover either). */
  usage: { today: PeriodUsage; month: PeriodUsage };
  /** Their own user limits, with what their budget counters hold spent; null: none. */
  limits: LimitView | null;
  conversations: { id: string; title: string; updatedAt: Date }[];
};

export const HOME_TOP = 5;
export const HOME_CONVERSATIONS = 5;
const ALERTS_SINCE_MS = 24 * 3_600_000;
const ALERTS_SHOWN = 3;

export function homeDays(now: number): HomeDays {
  const w = windowsAt(now);
  return { today: w.day, monthStart: `${w.month}-01` };
}

// The cost dashboard's measures, summed over the daily rollups: the same provider the page's cards read.
const USAGE_METRICS: MetricDef[] = [
  { key: "requests", measure: "requests", aggregation: "sum", format: "number", label: label("requests") },
  { key: "failures", measure: "failures", aggregation: "sum", format: "number", label: label("failures") },
  { key: "cost", measure: "cost", aggregation: "sum", format: "money", label: label("cost") },
  {
    key: "unpriced",
    measure: "unpricedRequests",
    aggregation: "sum",
    format: "number",
    label: label("unpriced"),
  },
];

function label(text: string) {
  return { en: text, zh: text };
}

const topChart = (dimension: "servedModel" | "apiKey"): ChartDef => ({
  key: `home-${dimension}`,
  title: label(dimension),
  type: "bar",
  dimension,
  measure: "cost",
  aggregation: "sum",
  format: "money",
  topN: HOME_TOP,
});

/** A page query with only the time filter `from` (the cost dashboard's f.day.from). */
const costQuery = (from: string): PageQuery => ({
  filters: { "day.from": from },
  segment: null,
  sort: { field: "day", direction: "desc" },
  cursor: null,
  limit: 1,
});

const count = (v: unknown) => Number(v ?? 0);

/**
 * A tenant admin's home: today's and this month's calls and spend, the tenant's budget, today's top models and
 * keys by spend, and the alerts of the last day. Spend, calls and the top lists are read through the cost
 * dashboard's own provider (opened as that page, with its role check and tenant scope); the budget through the
 * limits page's read; alerts through the alerts feature's. A member, or the super admin without a tenant, is
 * refused (403).
 */
export async function readAdminHome(
  sources: HomeSources,
  auth: UserContext,
  now = Date.now(),
): Promise<AdminHome> {
  const tenantId = auth.tenant?.id;
  if (!tenantId || !isTenantAdmin(auth)) throw forbidden("the home's tenant view is for tenant admins");
  const { provider, ctx } = sources.pages.open("agent-cost", auth);
  const days = homeDays(now);
  const usageOf = async (from: string): Promise<PeriodUsage> => {
    const m = await provider.metrics(ctx, costQuery(from), USAGE_METRICS);
    return {
      requests: count(m.requests),
      failures: count(m.failures),
      cost: normalizeDecimal(m.cost === null || m.cost === undefined ? "0" : String(m.cost)),
      unpriced: count(m.unpriced),
    };
  };
  const [today, month, models, keys, budget, alerts] = await Promise.all([
    usageOf(days.today),
    usageOf(days.monthStart),
    provider.series(ctx, costQuery(days.today), topChart("servedModel")),
    provider.series(ctx, costQuery(days.today), topChart("apiKey")),
    readLimitView(sources.db, sources.counters, tenantId, "tenant", tenantId, now),
    listFiredAlerts(sources.db, tenantId, { since: new Date(now - ALERTS_SINCE_MS), limit: ALERTS_SHOWN }),
  ]);
  return {
    ...days,
    usage: { today, month },
    budget,
    topModels: models.points.map((p) => ({ model: p.label, cost: normalizeDecimal(String(p.value)) })),
    topKeys: keys.points.map((p) => ({
      id: p.key ?? p.label,
      label: p.label,
      cost: normalizeDecimal(String(p.value)),
    })),
    alerts: { count: alerts.count, capped: alerts.capped, latest: alerts.alerts },
  };
}

const noUsage: PeriodUsage = { requests: 0, failures: 0, cost: "0", unpriced: 0 };

/**
 * A member's home (any role in the active tenant): their own calls and spend today and this month from the daily
 * rollups (never another person's: the rollup's user is theirs), their user limits, and their latest
 * conversations (the drawer's list).
 */
export async function readMemberHome(
  sources: HomeSources,
  auth: UserContext,
  now = Date.now(),
): Promise<MemberHome> {
  const tenantId = auth.tenant?.id;
  if (!tenantId) throw forbidden("choose a tenant first");
  const userId = auth.user.id;
  const days = homeDays(now);
  const usageOf = async (from: string): Promise<PeriodUsage> => {
    const [row] = await meter(sources.db, {
      tenantId,
      userId,
      by: "tenant",
      from,
      exceptSource: "api",
      limit: 1,
    });
    if (!row) return noUsage;
    return { requests: row.requests, failures: row.failures, cost: row.cost, unpriced: row.unpricedRequests };
  };
  const [today, month, limits, conversations] = await Promise.all([
    usageOf(days.today),
    usageOf(days.monthStart),
    readLimitView(sources.db, sources.counters, tenantId, "user", userId, now),
    listConversations(sources.db, { tenantId, userId, limit: HOME_CONVERSATIONS }),
  ]);
  return {
    ...days,
    usage: { today, month },
    limits,
    conversations: conversations.map((c) => ({ id: c.id, title: c.title, updatedAt: c.updatedAt })),
  };
}
