import { z } from "zod";
import { getDb } from "@/db";
import { renameConversationInput } from "@/features/drawer/contracts";
import { browserMessages } from "@/features/drawer/server/browser-messages";
import { activeTenantOrThrow, withUser } from "@/lib/auth/guards";
import { notFound } from "@/lib/core/errors/app-error";
import {
  conversationMessages,
  deleteConversation,
  getConversationOrThrow,
  renameConversation,
} from "@/lib/governance/conversations";
import { readJson } from "@/lib/http/route";

type Params = { id: string };
const idOf = (params: Params) => {
  // A malformed id cannot be anyone's conversation.
  const parsed = z.uuid().safeParse(params.id);
  if (!parsed.success) throw notFound("conversation");
  return parsed.data;
};

/**
 * One of the user's conversations with its messages (with what each shows: context chips, attachments, cards);
 * anyone else's id answers 404.
 */
export const GET = withUser<Params>(async (_req, { auth, params }) => {
  const tenant = activeTenantOrThrow(auth);
  const db = await getDb();
  const conversation = await getConversationOrThrow(db, {
    tenantId: tenant.id,
    userId: auth.user.id,
    id: idOf(params),
  });
  const messages = await conversationMessages(db, tenant.id, conversation.id);
  return Response.json({ conversation, messages: browserMessages(messages) });
});

export const PATCH = withUser<Params>(async (req, { auth, params }) => {
  const tenant = activeTenantOrThrow(auth);
  const { title } = await readJson(req, renameConversationInput);
  const conversation = await renameConversation(await getDb(), {
    tenantId: tenant.id,
    userId: auth.user.id,
    id: idOf(params),
    title,
  });
  return Response.json({ conversation });
});

/** Deletes the conversation and its messages; its ledger rows and audit trail stay. */
export const DELETE = withUser<Params>(async (_req, { auth, params }) => {
  const tenant = activeTenantOrThrow(auth);
  await deleteConversation(await getDb(), { tenantId: tenant.id, userId: auth.user.id, id: idOf(params) });
  return new Response(null, { status: 204 });
});
