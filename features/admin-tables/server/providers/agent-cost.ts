import "server-only";
import { eq, sql } from "drizzle-orm";
import { type Database, getDb } from "@/db";
import { appUser, tenant, usageDaily } from "@/db/schema";
import { likeContains } from "@/db/sql-text";
import type { PageProvider } from "@/features/admin-tables/contracts";
import { sqlProvider } from "../sql-provider";
import { isLedgerDimension, isShortRange, ledgerHourly, ledgerSeries } from "./agent-cost-ledger";

const u = usageDaily;
// usage_daily has a composite key; this stable id lets the table page and open details.
const rowId = sql`md5(${u.tenantId}::text || ${u.day}::text || ${u.userId}::text || ${u.source} || ${u.servedAdapter} || ${u.servedModel})::uuid`;

/**
 * The cost dashboard over the daily rollups, but for its charts by API key and by end user: the rollups have
 * neither dimension, so those two read the ledger through its (tenant, key | end user, started_at) indexes.
 */
export function agentCostProvider(database: () => Promise<Database> = getDb): PageProvider {
  const rollups = rollupProvider(database);
  return {
    ...rollups,
    series: async (ctx, q, chart) => {
      if (isLedgerDimension(chart.dimension))
        return {
          points: await ledgerSeries(await database(), ctx, q, { ...chart, dimension: chart.dimension }),
        };
      // The rollups have days only: a range of two days or less is drawn by the hour from the ledger instead.
      if (chart.dimension === "day" && isShortRange(q)) return ledgerHourly(await database(), ctx, q, chart);
      return rollups.series(ctx, q, chart);
    },
  };
}

function rollupProvider(database: () => Promise<Database>): PageProvider {
  return sqlProvider(database, {
    table: u,
    tenantColumn: u.tenantId,
    idColumn: rowId,
    fields: {
      id: rowId,
      day: u.day,
      tenantId: u.tenantId,
      tenantName: tenant.name,
      userId: u.userId,
      userEmail: appUser.email,
      source: u.source,
      servedAdapter: u.servedAdapter,
      servedModel: u.servedModel,
      requests: u.requests,
      failures: u.failures,
      inputTokens: u.inputTokens,
      cachedInputTokens: u.cachedInputTokens,
      outputTokens: u.outputTokens,
      cost: u.cost,
      unpricedRequests: u.unpricedRequests,
    },
    joins: [
      { table: tenant, on: eq(tenant.id, u.tenantId) },
      { table: appUser, on: eq(appUser.id, u.userId) },
    ],
    sorts: {
      day: { expr: sql`${u.day}::text`, type: "text" },
      cost: { expr: u.cost, type: "numeric" },
      requests: { expr: u.requests, type: "integer" },
    },
    filters: {
      servedModel: (v) => sql`${u.servedModel} ilike ${likeContains(v)}`,
      servedAdapter: (v) => eq(u.servedAdapter, v),
      source: (v) => eq(u.source, v),
    },
    // Daily rows: a time bound (a preset's "7 days ago, 14:05") covers its whole UTC day.
    dateFilters: { day: { utcDay: sql`${u.day}::timestamptz` } },
    suggestions: { servedModel: { value: u.servedModel, recent: u.day } },
    measures: {
      requests: u.requests,
      // Calls with status failed (the ledger's "failed" segment), for the home's failure rate.
      failures: u.failures,
      inputTokens: u.inputTokens,
      outputTokens: u.outputTokens,
      cachedInputTokens: u.cachedInputTokens,
      cost: u.cost,
      unpricedRequests: u.unpricedRequests,
    },
    dimensions: {
      servedModel: u.servedModel,
      servedAdapter: u.servedAdapter,
      user: appUser.email,
      source: u.source,
    },
    times: { day: { expr: sql`${u.day}::timestamp`, finest: "day" } },
    detail: async () => null,
  });
}
