import "server-only";
import { eq, sql } from "drizzle-orm";
import { type Database, getDb } from "@/db";
import { evalDataset, evalRun, tenant } from "@/db/schema";
import { likeContains } from "@/db/sql-text";
import type { PageProvider } from "@/features/admin-tables/contracts";
import { sqlProvider } from "../sql-provider";

const r = evalRun;

const finished = sql`ri.run_id = ${r.id} and ri.status in ('done', 'failed')`;
const done = sql<number>`(select count(*)::int from eval_run_item ri where ${finished})`;
const passed = sql<number>`(select count(*)::int from eval_run_item ri where ri.run_id = ${r.id} and ri.passed)`;
// Passes over finished items, as a percentage with one decimal; null before the first item finishes.
const passRate = sql<
  string | null
>`(select case when count(*) = 0 then null else round(100.0 * count(*) filter (where ri.passed) / count(*), 1) end from eval_run_item ri where ${finished})`;
const cost = sql<string>`(select coalesce(sum(coalesce(ri.cost, 0) + coalesce(ri.judge_cost, 0)), 0) from eval_run_item ri where ri.run_id = ${r.id})`;

const fields = {
  id: r.id,
  tenantId: r.tenantId,
  tenantName: tenant.name,
  name: sql<string>`coalesce(${r.name}, ${evalDataset.name})`,
  datasetId: r.datasetId,
  datasetName: evalDataset.name,
  status: r.status,
  // "alias" or "alias @ prompt", one chip per target.
  targets: sql<
    string[]
  >`(select coalesce(jsonb_agg(case when t ? 'prompt' then (t->>'model') || ' @ ' || (t->'prompt'->>'name') else t->>'model' end), '[]'::jsonb) from jsonb_array_elements(${r.targets}) t)`,
  progress: sql<string>`${done}::text || ' / ' || ${r.total}::text`,
  passed,
  passRate: sql<string | null>`(${passRate})::text || '%'`,
  cost: sql<string>`(${cost})::text`,
  createdAt: r.createdAt,
  finishedAt: r.finishedAt,
};

/** The tenant's evaluation runs for /dev/agent/evals: status, targets, progress, pass rate and cost. */
export function evalRunsProvider(database: () => Promise<Database> = getDb): PageProvider {
  return sqlProvider(database, {
    table: r,
    tenantColumn: r.tenantId,
    idColumn: r.id,
    fields,
    joins: [
      { table: tenant, on: eq(tenant.id, r.tenantId) },
      { table: evalDataset, on: eq(evalDataset.id, r.datasetId) },
    ],
    sorts: {
      createdAt: { expr: r.createdAt, type: "timestamptz" },
      passRate: { expr: passRate, type: "numeric" },
      cost: { expr: cost, type: "numeric" },
    },
    filters: {
      dataset: (v) =>
        sql`exists (select 1 from eval_dataset d where d.id = ${r.datasetId} and d.name ilike ${likeContains(v)})`,
    },
    dateFilters: { createdAt: r.createdAt },
    segmentColumn: r.status,
    measures: {},
    dimensions: { status: r.status },
    // The list links each run to its own page; there is no detail drawer.
    detail: async () => null,
  });
}
