import "server-only";
import { and, eq, isNull, sql } from "drizzle-orm";
import { type Database, getDb } from "@/db";
import { appUser, invitation } from "@/db/schema";
import { likeContains } from "@/db/sql-text";
import type { PageProvider, PageQuery, ProviderContext } from "@/features/admin-tables/contracts";
import { uuidOr404 } from "@/lib/core/schema/uuid";
import { sqlProvider } from "../sql-provider";

const i = invitation;

const fields = {
  id: i.id,
  tenantId: i.tenantId,
  email: i.email,
  role: i.role,
  createdAt: i.createdAt,
  expiresAt: i.expiresAt,
  // Aliased and qualified by hand: Drizzle writes columns bare in a one-table select.
  invitedBy: sql<string>`coalesce((select u.email from ${appUser} u where u.id = ${i}.invited_by), '')`,
};

const pending = () =>
  and(isNull(i.acceptedAt), isNull(i.revokedAt), sql`${i.expiresAt} > now()`) ?? sql`true`;
/** The filter every query carries, whatever the URL says: this list is of pending invitations only. */
const PENDING_FILTER = "pending";

/** The active tenant's pending invitations (neither accepted, revoked nor expired) for /dev/admin/members. */
export function adminInvitationsProvider(database: () => Promise<Database> = getDb): PageProvider {
  const provider = sqlProvider(database, {
    table: i,
    tenantColumn: i.tenantId,
    idColumn: i.id,
    fields,
    sorts: {
      createdAt: { expr: i.createdAt, type: "timestamptz" },
      expiresAt: { expr: i.expiresAt, type: "timestamptz" },
      email: { expr: i.email, type: "text" },
    },
    filters: {
      [PENDING_FILTER]: () => pending(),
      email: (v) => sql`${i.email} ilike ${likeContains(v)}`,
    },
    dateFilters: { createdAt: i.createdAt },
    measures: {},
    dimensions: { role: i.role },
    detail: invitationDetail,
  });
  const onlyPending = (q: PageQuery): PageQuery => ({
    ...q,
    filters: { ...q.filters, [PENDING_FILTER]: "1" },
  });
  return {
    rows: (ctx, q) => provider.rows(ctx, onlyPending(q)),
    count: (ctx, q) => provider.count(ctx, onlyPending(q)),
    metrics: (ctx, q, metrics) => provider.metrics(ctx, onlyPending(q), metrics),
    series: (ctx, q, chart) => provider.series(ctx, onlyPending(q), chart),
    detail: (ctx, id) => provider.detail(ctx, id),
    exportRows: (ctx, q) => provider.exportRows(ctx, onlyPending(q)),
  };
}

async function invitationDetail(db: Database, ctx: ProviderContext, rawId: string) {
  const id = uuidOr404(rawId);
  const [row] = await db
    .select(fields)
    .from(i)
    .where(and(eq(i.id, id), pending(), ctx.tenantId ? eq(i.tenantId, ctx.tenantId) : undefined))
    .limit(1);
  if (!row) return null;
  return { row: { ...row, createdAt: row.createdAt.toISOString(), expiresAt: row.expiresAt.toISOString() } };
}
