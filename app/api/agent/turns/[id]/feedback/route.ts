import { z } from "zod";
import { getDb } from "@/db";
import { turnFeedbackInput } from "@/features/drawer/contracts";
import { deleteTurnFeedback, putTurnFeedback } from "@/features/drawer/server/feedback";
import { activeTenantOrThrow, withUser } from "@/lib/auth/guards";
import { notFound } from "@/lib/core/errors/app-error";
import { readJson } from "@/lib/http/route";

const turnIdOrThrow = (id: string) => {
  const parsed = z.uuid().safeParse(id);
  if (!parsed.success) throw notFound("turn");
  return parsed.data;
};

/** The signed-in user's thumbs up / down (and comment) on an answer of theirs; sending it again changes it. */
export const PUT = withUser<{ id: string }>(async (req, { auth, params }) => {
  const tenant = activeTenantOrThrow(auth);
  const turnId = turnIdOrThrow(params.id);
  const input = await readJson(req, turnFeedbackInput);
  const feedback = await putTurnFeedback(
    await getDb(),
    { tenantId: tenant.id, userId: auth.user.id },
    turnId,
    input,
  );
  return Response.json({ feedback });
});

/** Takes the user's vote on an answer of theirs back. */
export const DELETE = withUser<{ id: string }>(async (_req, { auth, params }) => {
  const tenant = activeTenantOrThrow(auth);
  const turnId = turnIdOrThrow(params.id);
  await deleteTurnFeedback(await getDb(), { tenantId: tenant.id, userId: auth.user.id }, turnId);
  return Response.json({ feedback: null });
});
