import { getDb } from "@/db";
import { newSkillInput } from "@/features/prompts/contracts";
import { promptAccess } from "@/features/prompts/server/access";
import { liveSkills, saveSkill } from "@/features/prompts/server/skills";
import { listPrompts } from "@/features/prompts/server/store";
import { withUser } from "@/lib/auth/guards";
import { actorOf } from "@/lib/changes/changes";
import { readJson } from "@/lib/http/route";

/** The tenant's skills with their labels, newest version and description (every member may read them). */
export const GET = withUser(async (_req, { auth }) => {
  const db = await getDb();
  const { tenantId, rights } = promptAccess(auth);
  const [skills, live] = await Promise.all([listPrompts(db, tenantId, "skill"), liveSkills(db, tenantId)]);
  const described = new Map(live.map((s) => [s.name, s.description]));
  return Response.json({
    skills: skills.map((s) => ({ ...s, description: described.get(s.name) ?? "" })),
    rights,
  });
});

/** Creates a skill, or its next version: `{name, description, instructions, files?, labels?, message?}`. */
export const POST = withUser(async (req, { auth, requestId }) => {
  const input = await readJson(req, newSkillInput);
  const db = await getDb();
  const { tenantId, rights } = promptAccess(auth);
  const created = await saveSkill(db, tenantId, input, actorOf(auth, requestId), rights);
  return Response.json(created, { status: 201 });
});
