import "server-only";
import type { TurnExtras } from "@/lib/agent/service";
import type { TenantAccess, UserContext } from "@/lib/auth/users";
import { container } from "@/server/container";

/**
 * The admins' schema context: for a tenant admin of the active tenant, or the super admin, the page schemas
 * summarised for the model (added to the system prompt) with a "context" notice saying how much it adds.
 * Members get nothing: neither the summary nor (by their roles) the governance tools it describes.
 */
export function schemaContext(input: { auth: UserContext; tenant: TenantAccess }): TurnExtras | null {
  const superAdmin = input.auth.user.isSuperAdmin;
  if (!superAdmin && input.tenant.role !== "admin") return null;
  const summary = container().schemaContext.summary(superAdmin ? "super" : "admin");
  if (!summary.pages) return null;
  return {
    system: summary.text,
    notices: [
      { code: "context", message: `Schema context: ${summary.pages} pages, ~${summary.tokens} tokens` },
    ],
    audit: { schemaContext: { pages: summary.pages, tokens: summary.tokens } },
  };
}
