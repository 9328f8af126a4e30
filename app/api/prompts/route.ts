import { getDb } from "@/db";
import { newPromptInput } from "@/features/prompts/contracts";
import { promptAccess } from "@/features/prompts/server/access";
import { createVersion, listPrompts } from "@/features/prompts/server/store";
import { withUser } from "@/lib/auth/guards";
import { actorOf } from "@/lib/changes/changes";
import { readJson } from "@/lib/http/route";

/** The tenant's prompts with their labels and newest version (every member may read them). */
export const GET = withUser(async (_req, { auth }) => {
  const db = await getDb();
  const { tenantId, rights } = promptAccess(auth);
  return Response.json({ prompts: await listPrompts(db, tenantId), rights });
});

/** Creates a prompt, or its next version: `{name, type, messages | text, config?, labels?, message?}`. */
export const POST = withUser(async (req, { auth, requestId }) => {
  const input = await readJson(req, newPromptInput);
  const db = await getDb();
  const { tenantId, rights } = promptAccess(auth);
  const created = await createVersion(db, tenantId, input, actorOf(auth, requestId), rights);
  return Response.json(created, { status: 201 });
});
