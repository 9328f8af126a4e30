import "server-only";
import type { Database } from "@/db";
import type { SendTurnInput } from "@/features/drawer/contracts";
import type { TurnExtras } from "@/lib/agent/service";
import type { TenantAccess, UserContext } from "@/lib/auth/users";
import { CONTEXT_PREFACE } from "@/lib/core/text/context-block";
import type { ModelInfo } from "@/lib/gateway/types";
import { carriedImages, resolveAttachments } from "./attachments";
import { resolveContextItems } from "./context-items";
import { schemaContext } from "./schema-context";

/** What the drawer's turn route knows when it resolves a message's extras: who asks, where, with which model. */
export type ExtrasInput = {
  db: Database;
  auth: UserContext;
  tenant: TenantAccess;
  request: SendTurnInput;
  model: ModelInfo;
  /**
   * A regenerate's replaced user message's stored `data`: its context items, attachments and blocks go with the
   * new turn as they were (not loaded again).
   */
  carried?: Record<string, unknown>;
};

/**
 * Resolves everything that comes with a message before the turn starts, so a refusal (an object the user may
 * not open, a file too big, an image for a model without vision) is a 4xx and nothing is sent:
 * context items, attachments, and for admins the schema context.
 */
export async function resolveTurnExtras(input: ExtrasInput): Promise<TurnExtras | undefined> {
  const parts: TurnExtras[] = [];
  // A regenerate's images are loaded again: the stored message keeps only their names.
  if (input.carried) parts.push(carriedExtras(input.carried), await carriedImages(input, input.carried));
  else if (input.request.context?.length) parts.push(await resolveContextItems(input));
  if (input.request.attachments?.length) parts.push(await resolveAttachments(input));
  const schema = schemaContext(input);
  if (schema) parts.push(schema);
  return mergeExtras(parts);
}

/**
 * What a regenerated message had: its chips and attachments shown again, its blocks read again (as stored, so the
 * model sees what it saw the first time), and the audit naming them.
 */
export function carriedExtras(data: Record<string, unknown>): TurnExtras {
  const { contextBlocks, ...shown } = data;
  const blocks = Array.isArray(contextBlocks)
    ? contextBlocks.filter((b): b is string => typeof b === "string")
    : [];
  const audit: Record<string, unknown> = {};
  if (shown.context) audit.context = shown.context;
  if (shown.attachments) audit.attachments = shown.attachments;
  if (blocks.length) audit.contextText = blocks.filter((b) => b !== CONTEXT_PREFACE);
  return {
    ...(blocks.length ? { contextBlocks: blocks } : {}),
    ...(Object.keys(shown).length ? { data: shown } : {}),
    ...(Object.keys(audit).length ? { audit } : {}),
  };
}

/**
 * Several resolvers' extras as one: lists joined in order, data and audit merged; the preface that says the blocks
 * are data comes once, first, however many resolvers added it.
 */
export function mergeExtras(parts: TurnExtras[]): TurnExtras | undefined {
  if (!parts.length) return undefined;
  const out: TurnExtras = {};
  for (const p of parts) {
    const blocks = p.contextBlocks?.filter((b) => b !== CONTEXT_PREFACE);
    if (blocks?.length) out.contextBlocks = [...(out.contextBlocks ?? []), ...blocks];
    if (p.images?.length) out.images = [...(out.images ?? []), ...p.images];
    if (p.notices?.length) out.notices = [...(out.notices ?? []), ...p.notices];
    if (p.data) out.data = { ...out.data, ...p.data };
    if (p.audit) out.audit = { ...out.audit, ...p.audit };
    if (p.system) out.system = out.system ? `${out.system}\n\n${p.system}` : p.system;
  }
  if (out.contextBlocks) out.contextBlocks.unshift(CONTEXT_PREFACE);
  return out;
}
