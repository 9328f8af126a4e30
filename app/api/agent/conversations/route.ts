import { getDb } from "@/db";
import type { SysAgentSession } from "@/db/schema";
import { createConversationInput, listConversationsQuery } from "@/features/drawer/contracts";
import { activeTenantOrThrow, withUser } from "@/lib/auth/guards";
import { plainTitle } from "@/lib/core/text/plain-title";
import { createConversation, listConversations } from "@/lib/governance/conversations";
import { readJson } from "@/lib/http/route";

/** A conversation as the list shows it: the title as plain text, even one made before titles were stripped. */
const summaryOf = ({ id, title, model, createdAt, updatedAt }: SysAgentSession) => ({
  id,
  title: title ? plainTitle(title, 200) || title : title,
  model,
  createdAt,
  updatedAt,
});

/** The signed-in user's conversations in the active tenant, newest first; `q` searches titles and messages. */
export const GET = withUser(async (req, { auth }) => {
  const tenant = activeTenantOrThrow(auth);
  const url = new URL(req.url);
  const given = [...url.searchParams].filter(([, value]) => value !== "");
  const { limit, before, q } = listConversationsQuery.parse(Object.fromEntries(given));
  const rows = await listConversations(await getDb(), {
    tenantId: tenant.id,
    userId: auth.user.id,
    limit,
    before,
    search: q,
  });
  return Response.json({ conversations: rows.map(summaryOf) });
});

export const POST = withUser(async (req, { auth }) => {
  const tenant = activeTenantOrThrow(auth);
  const body = await readJson(req, createConversationInput);
  const row = await createConversation(await getDb(), { tenantId: tenant.id, userId: auth.user.id, ...body });
  return Response.json({ conversation: summaryOf(row) }, { status: 201 });
});
