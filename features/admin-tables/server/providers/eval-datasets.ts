import "server-only";
import { eq, isNull, sql } from "drizzle-orm";
import { type Database, getDb } from "@/db";
import { evalDataset, tenant } from "@/db/schema";
import { likeContains } from "@/db/sql-text";
import type { PageProvider, PageQuery } from "@/features/admin-tables/contracts";
import { sqlProvider } from "../sql-provider";

const d = evalDataset;

const items = sql<number>`(select count(*)::int from eval_dataset_item i where i.dataset_id = ${d.id} and i.archived_at is null)`;
const runs = sql<number>`(select count(*)::int from eval_run r where r.dataset_id = ${d.id})`;
const lastRunAt =
  sql<Date | null>`(select max(r.created_at) from eval_run r where r.dataset_id = ${d.id})`.mapWith(
    d.createdAt,
  );
// An item's edit is the dataset's too: the newest of the dataset's own stamp and its items'.
const updatedAt =
  sql<Date>`greatest(${d.updatedAt}, (select max(i.updated_at) from eval_dataset_item i where i.dataset_id = ${d.id}))`.mapWith(
    d.updatedAt,
  );

const fields = {
  id: d.id,
  tenantId: d.tenantId,
  tenantName: tenant.name,
  name: d.name,
  description: d.description,
  items,
  // The default scorers' types, as chips.
  scorers: sql<
    string[]
  >`(select coalesce(jsonb_agg(s->>'type'), '[]'::jsonb) from jsonb_array_elements(${d.scorers}) s)`,
  runs,
  lastRunAt,
  updatedAt,
  createdAt: d.createdAt,
};

/** Filters every query carries, whatever the URL says: archived datasets are not listed. */
const ACTIVE = "active";

/** The tenant's evaluation datasets for /dev/agent/evals: items, default scorers, runs and the latest run. */
export function evalDatasetsProvider(database: () => Promise<Database> = getDb): PageProvider {
  const provider = sqlProvider(database, {
    table: d,
    tenantColumn: d.tenantId,
    idColumn: d.id,
    fields,
    joins: [{ table: tenant, on: eq(tenant.id, d.tenantId) }],
    sorts: {
      name: { expr: d.name, type: "text" },
      items: { expr: items, type: "integer" },
      runs: { expr: runs, type: "integer" },
      updatedAt: { expr: updatedAt, type: "timestamptz" },
      createdAt: { expr: d.createdAt, type: "timestamptz" },
    },
    filters: {
      [ACTIVE]: () => isNull(d.archivedAt),
      name: (v) => sql`${d.name} ilike ${likeContains(v)}`,
    },
    dateFilters: { createdAt: d.createdAt },
    measures: {},
    dimensions: {},
    // The list links each dataset to its own page; there is no detail drawer.
    detail: async () => null,
  });
  const active = (q: PageQuery): PageQuery => ({ ...q, filters: { ...q.filters, [ACTIVE]: "1" } });
  return {
    rows: (ctx, q) => provider.rows(ctx, active(q)),
    count: (ctx, q) => provider.count(ctx, active(q)),
    metrics: (ctx, q, metrics) => provider.metrics(ctx, active(q), metrics),
    series: (ctx, q, chart) => provider.series(ctx, active(q), chart),
    detail: (ctx, id) => provider.detail(ctx, id),
    exportRows: (ctx, q) => provider.exportRows(ctx, active(q)),
  };
}
