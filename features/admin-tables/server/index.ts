import type { ReadRouter } from "@/db/read-replica";
import type { ToolListing } from "@/lib/agent/registry";
import type { UserContext } from "@/lib/auth/users";
import { forbidden, notFound } from "@/lib/core/errors/app-error";
import type { RouteRow } from "@/lib/gateway/gateway";
import type { PageProvider, PageSchema, ProviderContext } from "../contracts";
import { loadPageSchemas } from "./load";
import { adminChangesProvider } from "./providers/admin-changes";
import { adminInvitationsProvider } from "./providers/admin-invitations";
import { adminMembersProvider } from "./providers/admin-members";
import { adminTenantsProvider } from "./providers/admin-tenants";
import { agentAuditProvider } from "./providers/agent-audit";
import { agentCostProvider } from "./providers/agent-cost";
import { agentPromptsProvider } from "./providers/agent-prompts";
import { agentRunsProvider } from "./providers/agent-runs";
import { agentTurnsProvider } from "./providers/agent-turns";
import { evalDatasetsProvider } from "./providers/eval-datasets";
import { evalRunsProvider } from "./providers/eval-runs";
import { routingProvider } from "./providers/routing";
import { toolCatalogProvider } from "./providers/tool-catalog";
import { onReadReplica } from "./replica-reads";

/**
 * What providers read besides the database: the registered tools (listed without starting the agent), the read
 * replica the ledger's pages read from when one is configured (DATABASE_READ_URL), and the gateway's routing.
 */
export type PageSources = {
  listTools: () => ToolListing[];
  reads?: () => Promise<ReadRouter>;
  /** The gateway's routing table (every alias's candidates and their health), where a gateway runs. */
  routes?: () => RouteRow[];
};

/**
 * Read-only data sources, by the name page schemas use in "provider". The ledger's pages (turns, runs, the audit
 * trail, costs, the admin-change log) read from the read replica where there is one: rows written by calls, never by the
 * page itself. Pages whose rows their own admins edit (prompts, evaluations, tenants, members, invitations) read
 * the primary, so an edit shows at once.
 */
export const PROVIDERS: Record<string, (sources: PageSources) => PageProvider> = {
  agentTurns: (s) => onReadReplica(s.reads, agentTurnsProvider),
  agentRuns: (s) => onReadReplica(s.reads, agentRunsProvider),
  agentAudit: (s) => onReadReplica(s.reads, agentAuditProvider),
  agentCost: (s) => onReadReplica(s.reads, agentCostProvider),
  agentPrompts: () => agentPromptsProvider(),
  evalDatasets: () => evalDatasetsProvider(),
  evalRuns: () => evalRunsProvider(),
  toolCatalog: (sources) => toolCatalogProvider(sources.listTools),
  gatewayRouting: (sources) => routingProvider(sources.routes ?? (() => [])),
  adminChanges: (s) => onReadReplica(s.reads, adminChangesProvider),
  adminTenants: () => adminTenantsProvider(),
  adminMembers: () => adminMembersProvider(),
  adminInvitations: () => adminInvitationsProvider(),
};

export type OpenedPage = { page: PageSchema; provider: PageProvider; ctx: ProviderContext };

/** The validated page schemas with the providers that answer them. */
export class PageCatalog {
  constructor(
    readonly schemas: Map<string, PageSchema>,
    private readonly sources: PageSources,
  ) {}

  /** Loads and validates schemas/*.schema.json (a broken file throws PageSchemaError, naming file and field). */
  static load(sources: PageSources): PageCatalog {
    return new PageCatalog(loadPageSchemas(Object.keys(PROVIDERS)), sources);
  }

  /**
   * The page, its provider and the scope the user reads it in: a tenant admin sees the active tenant, the super
   * admin every tenant (or the one chosen in the switcher); a member only pages whose roles name "member", in the
   * active tenant. Anyone else is refused with 403; an unknown page is 404.
   */
  open(key: string, auth: UserContext): OpenedPage {
    const page = this.schemas.get(key);
    if (!page) throw notFound("page");
    const superAdmin = auth.user.isSuperAdmin;
    const allowed =
      (superAdmin && page.roles.includes("super")) ||
      (auth.role === "admin" && page.roles.includes("admin")) ||
      (auth.role !== null && auth.tenant !== null && page.roles.includes("member")) ||
      // Prompt editors (members an admin marked on the members page) open the pages of prompts and evaluations.
      (auth.tenant?.promptEditor === true && page.roles.includes("editor"));
    if (!allowed) throw forbidden("this page is for tenant admins");
    if (!superAdmin && !auth.tenant) throw forbidden("choose a tenant first");
    return {
      page,
      provider: PROVIDERS[page.provider]!(this.sources),
      ctx: { tenantId: auth.tenant?.id ?? null, superAdmin },
    };
  }
}
export { runSummary } from "./providers/agent-runs";
export * from "./providers/agent-turns";
export * from "./query";
export { readFromReplica } from "./replica-reads";
