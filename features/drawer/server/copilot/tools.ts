import "server-only";
import type { PageSchema } from "@/features/admin-tables/contracts";
import type { OpenedPage, PageCatalog } from "@/features/admin-tables/server";
import { StaticToolSet, type Tool, type ToolContext } from "@/lib/agent/tool";
import type { TenantAccess, UserContext } from "@/lib/auth/users";
import { AppError } from "@/lib/core/errors/app-error";
import { chartTool } from "./chart-tool";
import { metricsTool } from "./metrics-tool";
import { governedPages } from "./pages";
import { queryTool } from "./query-tool";
import { runsTool } from "./run-tool";

export const GOVERNANCE_TOOLS = [
  "governance_query",
  "governance_metrics",
  "governance_chart",
  "governance_runs",
] as const;

export type GovernanceToolOptions = { now?: () => Date };

/**
 * Read-only tools over the admin pages, derived from their schemas: each page's filters, metrics and charts, read
 * through the page's own provider with the routes' query parser, so an answer has the page's numbers. Only a tenant
 * admin is offered them (roles), and each call re-checks: its scope is built from the turn (its tenant, never the
 * platform), never from the arguments, which name only the page's own filters.
 */
export function governanceToolSet(catalog: PageCatalog, options: GovernanceToolOptions = {}): StaticToolSet {
  const now = options.now ?? (() => new Date());
  const pages = new Map(governedPages(catalog.schemas.values()).map((p) => [p.key, p]));
  const open = (key: string, ctx: ToolContext) => openForTurn(catalog, pages, key, ctx);
  const tools = [
    queryTool(pages, open, now),
    metricsTool(pages, open, now),
    chartTool(catalog, pages, open, now),
    runsTool(pages, open, now),
  ].filter((t): t is Tool => t !== null);
  return new StaticToolSet("governance", tools);
}

/**
 * The page and its provider as the turn's user may read it: the same gate as the page's route (PageCatalog.open),
 * for the turn's tenant and role. Never the platform view: the super admin's turn is in the tenant they chose.
 */
function openForTurn(
  catalog: PageCatalog,
  pages: Map<string, PageSchema>,
  key: string,
  ctx: ToolContext,
): OpenedPage {
  if (ctx.role !== "admin") throw new AppError("forbidden", "the governance tools are for tenant admins");
  if (!pages.has(key))
    throw new AppError("not_found", `unknown page "${key}"; pages: ${[...pages.keys()].join(", ")}`);
  const access: TenantAccess = {
    id: ctx.tenantId,
    name: "",
    slug: "",
    role: ctx.role,
    promptEditor: true,
    reviewer: false,
  };
  const auth: UserContext = {
    user: { id: ctx.userId, email: "", name: "", isSuperAdmin: false, sessionEpoch: 0 },
    tenants: [access],
    tenant: access,
    role: ctx.role,
  };
  const opened = catalog.open(key, auth);
  return { ...opened, ctx: { tenantId: ctx.tenantId, superAdmin: false } };
}
