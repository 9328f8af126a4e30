import "server-only";
import { activeTenantOrThrow, isTenantAdmin, type UserContext } from "@/lib/auth/guards";
import type { PromptRights } from "@/lib/prompts/store";

/** The active tenant and what this user may do with its prompts (every member reads and runs the playground). */
export function promptAccess(auth: UserContext): { tenantId: string; rights: PromptRights } {
  const tenant = activeTenantOrThrow(auth);
  const admin = isTenantAdmin(auth);
  const edit = admin || tenant.promptEditor;
  return { tenantId: tenant.id, rights: { edit, admin } };
}
