import { z } from "zod";
import { getDb } from "@/db";
import { hasNoNul, NO_NUL } from "@/db/sql-text";
import { activeTenantOrThrow, withUser } from "@/lib/auth/guards";
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
});

/** The signed-in user's conversations in the active tenant, newest first. */
export const GET = withUser(async (req, { auth }) => {
  const tenant = activeTenantOrThrow(auth);
  const url = new URL(req.url);
  const given = [...url.searchParams].filter(([, value]) => value !== "");
  const { limit, before } = listQuery.parse(Object.fromEntries(given));
  const rows = await listConversations(await getDb(), {
    tenantId: tenant.id,
    userId: auth.user.id,
    limit,
    before,
  });
  return Response.json({
    conversations: rows.map(({ id, title, model, createdAt, updatedAt }) => ({
      id,
      title,
      model,
      createdAt,
      updatedAt,
    })),
  });
});

const createBody = z.object({
  title: z.string().trim().max(200).refine(hasNoNul, NO_NUL).optional(),
  model: z.string().max(100).refine(hasNoNul, NO_NUL).optional(),
});

export const POST = withUser(async (req, { auth }) => {
  const tenant = activeTenantOrThrow(auth);
  const body = await readJson(req, createBody);
  const row = await createConversation(await getDb(), { tenantId: tenant.id, userId: auth.user.id, ...body });
  return Response.json(
    {
      conversation: {
        id: row.id,
        title: row.title,
        model: row.model,
        createdAt: row.createdAt,
        updatedAt: row.updatedAt,
      },
    },
    { status: 201 },
  );
});
