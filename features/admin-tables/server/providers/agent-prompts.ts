import "server-only";
import { eq, sql } from "drizzle-orm";
import { type Database, getDb } from "@/db";
import { prompt, tenant } from "@/db/schema";
import { likeContains } from "@/db/sql-text";
import type { PageProvider } from "@/features/admin-tables/contracts";
import { sqlProvider } from "../sql-provider";

const p = prompt;

// Correlated on the prompt's own tenant and name: the (tenant, prompt_name, prompt_version, started_at) index.
const lastWeek = sql`t.tenant_id = ${p.tenantId} and t.prompt_name = ${p.name} and t.started_at >= now() - interval '7 days'`;
const updatedAt =
  sql<Date>`coalesce((select max(l.updated_at) from prompt_label l where l.prompt_id = ${p.id}), ${p.createdAt})`.mapWith(
    p.createdAt,
  );
const calls7d = sql<number>`(select count(*)::int from sys_agent_turn t where ${lastWeek})`;
const cost7d = sql<string>`(select coalesce(sum(t.cost), 0) from sys_agent_turn t where ${lastWeek})`;

const fields = {
  id: p.id,
  tenantId: p.tenantId,
  tenantName: tenant.name,
  name: p.name,
  type: p.type,
  // Labels other than the automatic `latest`, as chips that say where each points ("production v2").
  labels: sql<
    string[]
  >`(select coalesce(jsonb_agg(l.label || ' v' || l.version order by l.label), '[]'::jsonb) from prompt_label l where l.prompt_id = ${p.id} and l.label <> 'latest')`,
  latestVersion: sql<number>`(select l.version from prompt_label l where l.prompt_id = ${p.id} and l.label = 'latest')`,
  updatedAt,
  calls7d,
  cost7d: sql<string>`${cost7d}::text`,
};

/**
 * The tenant's prompts for /dev/agent/prompts (every member reads them): labels, newest version, and the calls and
 * cost of the last 7 days from the ledger rows that used each prompt.
 */
export function agentPromptsProvider(database: () => Promise<Database> = getDb): PageProvider {
  return sqlProvider(database, {
    table: p,
    tenantColumn: p.tenantId,
    // Skills live in the prompt store too (kind "skill") and have their own page.
    always: eq(p.kind, "prompt"),
    idColumn: p.id,
    fields,
    joins: [{ table: tenant, on: eq(tenant.id, p.tenantId) }],
    sorts: {
      name: { expr: p.name, type: "text" },
      updatedAt: { expr: updatedAt, type: "timestamptz" },
      calls7d: { expr: calls7d, type: "integer" },
      cost7d: { expr: cost7d, type: "numeric" },
    },
    filters: {
      name: (v) => sql`${p.name} ilike ${likeContains(v)}`,
      label: (v) =>
        sql`exists (select 1 from prompt_label l where l.prompt_id = ${p.id} and l.label = ${v.trim()})`,
    },
    dateFilters: {},
    segmentColumn: p.type,
    measures: {},
    dimensions: { type: p.type },
    // The list links each prompt to its own page; there is no detail drawer.
    detail: async () => null,
  });
}
