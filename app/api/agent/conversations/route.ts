import { z } from "zod";
import { getDb } from "@/db";
import type { SysAgentSession } from "@/db/schema";
import { hasNoNul, NO_NUL } from "@/db/sql-text";
import { activeTenantOrThrow, withUser } from "@/lib/auth/guards";
import { plainTitle } from "@/lib/core/text/plain-title";
import { createConversation, listConversations } from "@/lib/governance/conversations";
import { readJson } from "@/lib/http/route";

const listQuery = z.object({
  limit: z.coerce.number("a whole number from 1 to 200").int().min(1).max(200).optional(),
  // Years 1 to 9999: what PostgreSQL's timestamps and ISO strings both hold.
  before: z.coerce
    .date("a time, e.g. 2026-11-01T09:30:00Z")
    .min(new Date("0001-01-01T00:00:00Z"), "a time after the year 1")
    .max(new Date("9999-12-31T23:59:59Z"), "a time before the year 10000")
    .optional(),
  q: z.string().trim().max(200, "search for at most 200 characters").refine(hasNoNul, NO_NUL).optional(),
});

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
  const { limit, before, q } = listQuery.parse(Object.fromEntries(given));
  const rows = await listConversations(await getDb(), {
    tenantId: tenant.id,
    userId: auth.user.id,
    limit,
    before,
    search: q,
  });
  return Response.json({ conversations: rows.map(summaryOf) });
});

const createBody = z.object({
  title: z.string().trim().max(200).refine(hasNoNul, NO_NUL).optional(),
  model: z.string().max(100).refine(hasNoNul, NO_NUL).optional(),
});

export const POST = withUser(async (req, { auth }) => {
  const tenant = activeTenantOrThrow(auth);
  const body = await readJson(req, createBody);
  const row = await createConversation(await getDb(), { tenantId: tenant.id, userId: auth.user.id, ...body });
  return Response.json({ conversation: summaryOf(row) }, { status: 201 });
});
