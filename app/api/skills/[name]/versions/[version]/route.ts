import { getDb } from "@/db";
import { skillNameProblem } from "@/features/prompts/contracts";
import { promptAccess } from "@/features/prompts/server/access";
import { archiveVersion } from "@/features/prompts/server/store";
import { withUser } from "@/lib/auth/guards";
import { actorOf } from "@/lib/changes/changes";
import { notFound } from "@/lib/core/errors/app-error";

/** Archives a skill version no label points at (409 when one does); nothing is deleted. */
export const DELETE = withUser<{ name: string; version: string }>(
  async (_req, { auth, params, requestId }) => {
    if (skillNameProblem(params.name)) throw notFound("skill");
    if (!/^\d{1,9}$/.test(params.version)) throw notFound("version");
    const db = await getDb();
    const { tenantId, rights } = promptAccess(auth);
    const version = Number(params.version);
    await archiveVersion(db, tenantId, params.name, version, actorOf(auth, requestId), rights, "skill");
    return Response.json({ archived: { name: params.name, version } });
  },
);
