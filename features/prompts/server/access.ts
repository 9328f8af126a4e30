import "server-only";
import type { PromptRights } from "@/features/prompts/server/store";
import { activeTenantOrThrow, isTenantAdmin } from "@/lib/auth/access";
import type { UserContext } from "@/lib/auth/users";

/** The active tenant and what this user may do with its prompts (every member reads and runs the playground). */
export function promptAccess(auth: UserContext): { tenantId: string; rights: PromptRights } {
  const tenant = activeTenantOrThrow(auth);
  const admin = isTenantAdmin(auth);
  const edit = admin || tenant.promptEditor;
  return { tenantId: tenant.id, rights: { edit, admin } };
}
