import "server-only";
import { and, eq, or, sql } from "drizzle-orm";
import { type Database, getDb } from "@/db";
import { appUser, membership } from "@/db/schema";
import { likeContains } from "@/db/sql-text";
import type { PageProvider, ProviderContext } from "@/features/admin-tables/contracts";
import { uuidOr404 } from "@/lib/core/schema/uuid";
import { sqlProvider } from "../sql-provider";

const m = membership;

const fields = {
  id: m.userId,
  userId: m.userId,
  tenantId: m.tenantId,
  email: appUser.email,
  name: appUser.name,
  role: m.role,
  promptEditor: m.promptEditor,
  reviewer: m.reviewer,
  joinedAt: m.createdAt,
};

// Filters and sorts also run in the count query, which has no join: they reach the user through a subquery.
const userWhere = (condition: ReturnType<typeof sql>) =>
  sql`${m.userId} in (select ${appUser.id} from ${appUser} where ${condition})`;

/** The active tenant's members (membership + user) for /dev/admin/members. */
export function adminMembersProvider(database: () => Promise<Database> = getDb): PageProvider {
  return sqlProvider(database, {
    table: m,
    tenantColumn: m.tenantId,
    idColumn: m.userId,
    fields,
    joins: [{ table: appUser, on: eq(appUser.id, m.userId) }],
    sorts: {
      email: { expr: appUser.email, type: "text" },
      name: { expr: appUser.name, type: "text" },
      joinedAt: { expr: m.createdAt, type: "timestamptz" },
    },
    filters: {
      q: (v) =>
        userWhere(
          or(sql`${appUser.email} ilike ${likeContains(v)}`, sql`${appUser.name} ilike ${likeContains(v)}`) ??
            sql`true`,
        ),
      role: (v) => (v === "admin" || v === "member" ? eq(m.role, v) : undefined),
    },
    dateFilters: { joinedAt: m.createdAt },
    suggestions: { q: { value: appUser.email } },
    measures: {},
    dimensions: { role: m.role },
    detail: memberDetail,
  });
}

async function memberDetail(db: Database, ctx: ProviderContext, rawId: string) {
  const id = uuidOr404(rawId);
  const [row] = await db
    .select(fields)
    .from(m)
    .innerJoin(appUser, eq(appUser.id, m.userId))
    .where(ctx.tenantId ? and(eq(m.userId, id), eq(m.tenantId, ctx.tenantId)) : eq(m.userId, id))
    .limit(1);
  if (!row) return null;
  return { row: { ...row, joinedAt: row.joinedAt.toISOString() } };
}
