import "server-only";
import type { Database } from "@/db";
import type { SendTurnInput } from "@/features/drawer/contracts";
import type { TurnExtras } from "@/lib/agent/service";
import type { TenantAccess, UserContext } from "@/lib/auth/users";
import { AppError } from "@/lib/core/errors";
import type { ModelInfo } from "@/lib/gateway/types";

/** What the drawer's turn route knows when it resolves a message's extras: who asks, where, with which model. */
export type ExtrasInput = {
  db: Database;
  auth: UserContext;
  tenant: TenantAccess;
  request: SendTurnInput;
  model: ModelInfo;
};

/**
 * Resolves everything that comes with a message before the turn starts, so a refusal (an object the user may
 * not open, a file too big, an image for a model without vision) is a 4xx and nothing is sent:
 * context items, attachments, and for admins the schema context.
 */
export async function resolveTurnExtras(input: ExtrasInput): Promise<TurnExtras | undefined> {
  const parts: TurnExtras[] = [];
  if (input.request.context?.length) throw new AppError("bad_request", "context items are not supported yet");
  if (input.request.attachments?.length)
    throw new AppError("bad_request", "attachments are not supported yet");
  return mergeExtras(parts);
}

/** Several resolvers' extras as one: lists joined in order, data and audit merged. */
export function mergeExtras(parts: TurnExtras[]): TurnExtras | undefined {
  if (!parts.length) return undefined;
  const out: TurnExtras = {};
  for (const p of parts) {
    if (p.contextBlocks?.length) out.contextBlocks = [...(out.contextBlocks ?? []), ...p.contextBlocks];
    if (p.images?.length) out.images = [...(out.images ?? []), ...p.images];
    if (p.notices?.length) out.notices = [...(out.notices ?? []), ...p.notices];
    if (p.data) out.data = { ...out.data, ...p.data };
    if (p.audit) out.audit = { ...out.audit, ...p.audit };
    if (p.system) out.system = out.system ? `${out.system}\n\n${p.system}` : p.system;
  }
  return out;
}
