import { z } from "zod";
import { getDb } from "@/db";
import { activeTenantOrThrow, withUser } from "@/lib/auth/guards";
import { createConversation, listConversations } from "@/lib/governance/conversations";
import { readJson } from "@/lib/http/route";

/** The signed-in user's conversations in the active tenant, newest first. */
export const GET = withUser(async (req, { auth }) => {
  const tenant = activeTenantOrThrow(auth);
  const url = new URL(req.url);
  const before = url.searchParams.get("before");
  const limit = z.coerce
    .number()
    .int()
    .min(1)
    .max(200)
    .optional()
    .parse(url.searchParams.get("limit") ?? undefined);
  const rows = await listConversations(await getDb(), {
    tenantId: tenant.id,
    userId: auth.user.id,
    limit,
    before: before ? z.coerce.date().parse(before) : undefined,
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
  title: z.string().trim().max(200).optional(),
  model: z.string().max(100).optional(),
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
