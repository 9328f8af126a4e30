import { getDb } from "@/db";
import { skillNameProblem } from "@/features/prompts/contracts";
import { promptAccess } from "@/features/prompts/server/access";
import { archiveSkill, missingSkill, skillFile, skillVersion } from "@/features/prompts/server/skills";
import { promptVersions, type VersionRef } from "@/features/prompts/server/store";
import { withUser } from "@/lib/auth/guards";
import { actorOf } from "@/lib/changes/changes";
import { AppError, notFound } from "@/lib/core/errors/app-error";

type Params = { name: string };

const invalid = (field: string, problem: string) =>
  new AppError("validation_failed", "the request is invalid", { fields: { [field]: [problem] } });

/** The version a query names: ?version=N or ?label=…, else production (then latest). */
function refOf(url: URL): VersionRef {
  const version = url.searchParams.get("version");
  const label = url.searchParams.get("label");
  if (version !== null && label !== null) throw invalid("label", "give version or label, not both");
  if (version !== null) {
    if (!/^\d{1,9}$/.test(version) || Number(version) < 1)
      throw invalid("version", "a version number, such as 3");
    return { version: Number(version) };
  }
  return label !== null ? { label } : {};
}

/**
 * GET /api/skills/{name}: every version and label; with ?version= or ?label= one version and its file list; with
 * ?file=path (and optionally a version or label) that file's content.
 */
export const GET = withUser<Params>(async (req, { auth, params }) => {
  const name = params.name;
  if (skillNameProblem(name)) throw notFound("skill");
  const db = await getDb();
  const { tenantId, rights } = promptAccess(auth);
  const url = new URL(req.url);
  const path = url.searchParams.get("file");
  if (path !== null) {
    const ref = refOf(url);
    const file = await skillFile(db, tenantId, name, path, ref);
    if (!file) throw notFound(`file "${path.slice(0, 255)}" of skill "${name}"`);
    return Response.json({ file });
  }
  if (!url.searchParams.has("label") && !url.searchParams.has("version"))
    return Response.json({ ...(await promptVersions(db, tenantId, name, "skill")), rights });
  const ref = refOf(url);
  const version = await skillVersion(db, tenantId, name, ref);
  if (!version) throw missingSkill(name, ref);
  return Response.json({ version });
});

/** Archives the skill: hidden from the list and from the model; its versions stay, and a new version revives it. */
export const DELETE = withUser<Params>(async (_req, { auth, params, requestId }) => {
  if (skillNameProblem(params.name)) throw notFound("skill");
  const db = await getDb();
  const { tenantId, rights } = promptAccess(auth);
  await archiveSkill(db, tenantId, params.name, actorOf(auth, requestId), rights);
  return Response.json({ archived: { name: params.name } });
});
