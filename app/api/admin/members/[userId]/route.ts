import { z } from "zod";
import { getDb } from "@/db";
import { changeMemberInput } from "@/features/members/contracts";
import { changeRole, removeMember, setPromptEditor, setReviewer } from "@/features/members/server/members";
import { activeTenantOrThrow, withTenantAdmin } from "@/lib/auth/guards";
import { actorOf } from "@/lib/changes/changes";
import { notFound } from "@/lib/core/errors/app-error";
import { readJson } from "@/lib/http/route";

const userIdOf = (raw: string) => {
  const id = z.uuid().safeParse(raw);
  if (!id.success) throw notFound("member");
  return id.data;
};

/**
 * Changes a member's role (`{role: "member" | "admin"}`; the last admin cannot be demoted) and/or whether they are a
 * prompt editor (`{promptEditor: boolean}`) and/or whether they review (`{reviewer: boolean}`: they may work the review
 * queues open to reviewers). Each change is its own admin-change row.
 */
export const PATCH = withTenantAdmin<{ userId: string }>(async (req, { auth, params, requestId }) => {
  const tenant = activeTenantOrThrow(auth);
  const input = await readJson(req, changeMemberInput);
  const db = await getDb();
  const actor = actorOf(auth, requestId);
  const userId = userIdOf(params.userId);
  let member = input.role ? await changeRole(db, actor, tenant.id, userId, { role: input.role }) : null;
  if (input.promptEditor !== undefined)
    member = await setPromptEditor(db, actor, tenant.id, userId, { promptEditor: input.promptEditor });
  if (input.reviewer !== undefined)
    member = await setReviewer(db, actor, tenant.id, userId, { reviewer: input.reviewer });
  return Response.json({ member });
});

/** Removes a member at once (their sessions lose access on their next request); the last admin cannot go. */
export const DELETE = withTenantAdmin<{ userId: string }>(async (_req, { auth, params, requestId }) => {
  const tenant = activeTenantOrThrow(auth);
  await removeMember(await getDb(), actorOf(auth, requestId), tenant.id, userIdOf(params.userId));
  return Response.json({ removed: true });
});
