import { getDb } from "@/db";
import { labelName, moveLabelInput, skillNameProblem } from "@/features/prompts/contracts";
import { promptAccess } from "@/features/prompts/server/access";
import { moveLabel } from "@/features/prompts/server/store";
import { withUser } from "@/lib/auth/guards";
import { actorOf } from "@/lib/changes/changes";
import { AppError, notFound } from "@/lib/core/errors/app-error";
import { readJson } from "@/lib/http/route";

/** Moves a skill's label: `{version}`. `production` is for tenant admins; `latest` is kept by the store. */
export const PUT = withUser<{ name: string; label: string }>(async (req, { auth, params, requestId }) => {
  if (skillNameProblem(params.name)) throw notFound("skill");
  const label = labelName.safeParse(params.label);
  if (!label.success)
    throw new AppError("validation_failed", "the request is invalid", {
      fields: { label: [label.error.issues[0]!.message] },
    });
  const input = await readJson(req, moveLabelInput);
  const db = await getDb();
  const { tenantId, rights } = promptAccess(auth);
  return Response.json(
    await moveLabel(
      db,
      tenantId,
      params.name,
      label.data,
      input.version,
      actorOf(auth, requestId),
      rights,
      "skill",
    ),
  );
});
