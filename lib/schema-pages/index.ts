import type { UserContext } from "@/lib/auth/users";
import { forbidden, notFound } from "@/lib/core/errors";
import { loadPageSchemas } from "./load";
import { adminChangesProvider } from "./providers/admin-changes";
import { adminInvitationsProvider } from "./providers/admin-invitations";
import { adminMembersProvider } from "./providers/admin-members";
import { adminTenantsProvider } from "./providers/admin-tenants";
import { agentAuditProvider } from "./providers/agent-audit";
import { agentCostProvider } from "./providers/agent-cost";
import { agentTurnsProvider } from "./providers/agent-turns";
import { toolCatalogProvider } from "./providers/tool-catalog";
import type { PageProvider, PageSchema, ProviderContext } from "./types";

/** Read-only data sources, by the name page schemas use in "provider". */
export const PROVIDERS: Record<string, () => PageProvider> = {
  agentTurns: () => agentTurnsProvider(),
  agentAudit: () => agentAuditProvider(),
  agentCost: () => agentCostProvider(),
  toolCatalog: () => toolCatalogProvider(),
  adminChanges: () => adminChangesProvider(),
  adminTenants: () => adminTenantsProvider(),
  adminMembers: () => adminMembersProvider(),
  adminInvitations: () => adminInvitationsProvider(),
};

type Holder = { __tollgatePages?: Map<string, PageSchema> };
const holder = globalThis as Holder;

/** The validated page schemas, loaded once (at start, so a broken file stops the app). */
export function pageSchemas(): Map<string, PageSchema> {
  holder.__tollgatePages ??= loadPageSchemas(Object.keys(PROVIDERS));
  return holder.__tollgatePages;
}

/**
 * The page, its provider and the scope the user reads it in: a tenant admin sees the active tenant, the super
 * admin every tenant (or the one chosen in the switcher). Members are refused with 403; an unknown page is 404.
 */
export function openPage(
  key: string,
  auth: UserContext,
): { page: PageSchema; provider: PageProvider; ctx: ProviderContext } {
  const page = pageSchemas().get(key);
  if (!page) throw notFound("page");
  const superAdmin = auth.user.isSuperAdmin;
  const allowed =
    (superAdmin && page.roles.includes("super")) || (auth.role === "admin" && page.roles.includes("admin"));
  if (!allowed) throw forbidden("this page is for tenant admins");
  if (!superAdmin && !auth.tenant) throw forbidden("choose a tenant first");
  return {
    page,
    provider: PROVIDERS[page.provider]!(),
    ctx: { tenantId: auth.tenant?.id ?? null, superAdmin },
  };
}
