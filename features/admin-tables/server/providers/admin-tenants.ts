import "server-only";
import { eq, or, sql } from "drizzle-orm";
import { type Database, getDb } from "@/db";
import { membership, sysAgentTurn, tenant, usageDaily } from "@/db/schema";
import { likeContains } from "@/db/sql-text";
import type { PageProvider, ProviderContext } from "@/features/admin-tables/contracts";
import { forbidden } from "@/lib/core/errors/app-error";
import { uuidOr404 } from "@/lib/core/schema/uuid";
import { sqlProvider } from "../sql-provider";

// Qualified by hand: in a one-table select Drizzle writes ${tenant.id} as a bare "id", which inside a subquery
// would mean the subquery's own table's id (sys_agent_turn has one).
const tenantId = sql`${tenant}.id`;
const members = sql<number>`(select count(*)::int from ${membership} m where m.tenant_id = ${tenantId})`;
const spendThisMonth = sql<string>`(select coalesce(sum(u.cost), 0) from ${usageDaily} u where u.tenant_id = ${tenantId} and u.day >= date_trunc('month', now())::date)`;
const lastActivityAt = sql<Date | null>`(select max(t.started_at) from ${sysAgentTurn} t where t.tenant_id = ${tenantId})`;

const fields = {
  id: tenant.id,
  name: tenant.name,
  slug: tenant.slug,
  disabled: tenant.disabled,
  status: sql<string>`case when ${tenant.disabled} then 'disabled' else 'active' end`,
  createdAt: tenant.createdAt,
  members,
  lastActivityAt: lastActivityAt.mapWith(sysAgentTurn.startedAt),
  spendThisMonth: sql<string>`${spendThisMonth}::text`,
};

/**
 * Every tenant, for the platform super admin's /dev/admin/tenants: the tenant table is the platform's, so the
 * tenant chosen in the switcher does not narrow it. Anyone else is refused, whatever the page file says.
 */
export function adminTenantsProvider(database: () => Promise<Database> = getDb): PageProvider {
  const provider = sqlProvider(database, {
    table: tenant,
    tenantColumn: tenant.id,
    idColumn: tenant.id,
    fields,
    sorts: {
      name: { expr: tenant.name, type: "text" },
      slug: { expr: tenant.slug, type: "text" },
      createdAt: { expr: tenant.createdAt, type: "timestamptz" },
      members: { expr: members, type: "integer" },
      spendThisMonth: { expr: spendThisMonth, type: "numeric" },
    },
    filters: {
      q: (v) =>
        or(sql`${tenant.name} ilike ${likeContains(v)}`, sql`${tenant.slug} ilike ${likeContains(v)}`),
      status: (v) =>
        v === "disabled"
          ? eq(tenant.disabled, true)
          : v === "active"
            ? eq(tenant.disabled, false)
            : undefined,
    },
    dateFilters: { createdAt: tenant.createdAt },
    suggestions: { q: { value: tenant.name } },
    measures: {},
    dimensions: {},
    detail: tenantDetail,
  });
  return platformWide(provider);
}

/** The provider read as the whole platform: only the super admin, never narrowed to the active tenant. */
function platformWide(provider: PageProvider): PageProvider {
  const platform = (ctx: ProviderContext): ProviderContext => {
    if (!ctx.superAdmin) throw forbidden("platform super admin only");
    return { tenantId: null, superAdmin: true };
  };
  return {
    rows: (ctx, q) => provider.rows(platform(ctx), q),
    count: (ctx, q) => provider.count(platform(ctx), q),
    metrics: (ctx, q, metrics) => provider.metrics(platform(ctx), q, metrics),
    series: (ctx, q, chart) => provider.series(platform(ctx), q, chart),
    detail: (ctx, id) => provider.detail(platform(ctx), id),
    exportRows: (ctx, q) => provider.exportRows(platform(ctx), q),
    suggest: (ctx, field, q, limit) =>
      provider.suggest?.(platform(ctx), field, q, limit) ?? Promise.resolve(null),
  };
}

async function tenantDetail(db: Database, _ctx: ProviderContext, rawId: string) {
  const [row] = await db
    .select(fields)
    .from(tenant)
    .where(eq(tenant.id, uuidOr404(rawId)))
    .limit(1);
  if (!row) return null;
  return {
    row: {
      ...row,
      createdAt: row.createdAt.toISOString(),
      lastActivityAt: row.lastActivityAt?.toISOString(),
    },
  };
}
