import { getDb } from "@/db";
import { importSkillInput, SKILL_LIMITS } from "@/features/prompts/contracts";
import { promptAccess } from "@/features/prompts/server/access";
import { filesOfZip, saveSkill, skillFromFolder } from "@/features/prompts/server/skills";
import { withUser } from "@/lib/auth/guards";
import { actorOf } from "@/lib/changes/changes";
import { AppError } from "@/lib/core/errors/app-error";
import { readJson, readMultipart } from "@/lib/http/route";

/**
 * Imports an Agent-Skills folder: a zip (multipart/form-data, field `file`) or JSON `{files: [{path, content}]}`,
 * SKILL.md's front matter naming the skill. A skill of that name gets a new version.
 */
export const POST = withUser(async (req, { auth, requestId }) => {
  const { tenantId, rights } = promptAccess(auth);
  let folder: { path: string; content: string }[];
  let labels: string[] | undefined;
  if ((req.headers.get("content-type") ?? "").toLowerCase().startsWith("multipart/")) {
    const form = await readMultipart(req, SKILL_LIMITS.maxZipBytes);
    const file = form.get("file");
    if (file === null || typeof file === "string")
      throw new AppError("bad_request", 'send the zip in a form field named "file"');
    folder = filesOfZip(Buffer.from(await file.arrayBuffer()));
  } else {
    const input = await readJson(req, importSkillInput);
    folder = input.files;
    labels = input.labels;
  }
  const skill = skillFromFolder(folder);
  const db = await getDb();
  const saved = await saveSkill(
    db,
    tenantId,
    { ...skill, labels, message: "imported" },
    actorOf(auth, requestId),
    rights,
  );
  return Response.json(
    { ...saved, description: skill.description, files: skill.files?.length ?? 0 },
    { status: 201 },
  );
});
