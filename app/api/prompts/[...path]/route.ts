import { type Database, getDb } from "@/db";
import { labelName, moveLabelInput, playgroundInput, promptName } from "@/features/prompts/contracts";
import { promptAccess } from "@/features/prompts/server/access";
import { runPlayground } from "@/features/prompts/server/playground";
import { promptVersionStats } from "@/features/prompts/server/stats";
import {
  archiveVersion,
  describeRef,
  findVersion,
  moveLabel,
  promptVersions,
  type VersionRef,
} from "@/features/prompts/server/store";
import { withUser } from "@/lib/auth/guards";
import { actorOf } from "@/lib/changes/changes";
import { AppError, notFound } from "@/lib/core/errors/app-error";
import { readJson } from "@/lib/http/route";
import { container } from "@/server/container";

type Params = { path: string[] };

/**
 * A prompt's routes, its name being every segment before the action (names may hold "/"):
 * GET /api/prompts/{name}[?label=…|?version=N], PUT /api/prompts/{name}/labels/{label},
 * POST /api/prompts/{name}/run (the playground), DELETE /api/prompts/{name}/versions/{N} (archives),
 * GET /api/prompts/{name}/stats (versions compared).
 */
function parse(path: string[], action?: "labels" | "versions" | "run" | "stats") {
  const parts = path.map((p) => decodeURIComponent(p));
  let name = parts;
  let arg: string | undefined;
  if (action === "run" || action === "stats") {
    if (parts.at(-1) !== action) throw notFound("route");
    name = parts.slice(0, -1);
  } else if (action) {
    if (parts.at(-2) !== action) throw notFound("route");
    name = parts.slice(0, -2);
    arg = parts.at(-1);
  }
  const checked = promptName.safeParse(name.join("/"));
  if (!checked.success) throw notFound("prompt");
  return { name: checked.data, arg };
}

function refOf(url: URL): VersionRef {
  const version = url.searchParams.get("version");
  const label = url.searchParams.get("label");
  if (version !== null && label !== null)
    throw new AppError("validation_failed", "the request is invalid", {
      fields: { label: ["give version or label, not both"] },
    });
  if (version !== null) {
    if (!/^\d{1,9}$/.test(version) || Number(version) < 1)
      throw new AppError("validation_failed", "the request is invalid", {
        fields: { version: ["a version number, such as 3"] },
      });
    return { version: Number(version) };
  }
  return label !== null ? { label } : {};
}

/** One prompt's versions and labels, or with ?label= / ?version= one version. */
export const GET = withUser<Params>(async (req, { auth, params }) => {
  const db = await getDb();
  const { tenantId, rights } = promptAccess(auth);
  const url = new URL(req.url);
  if (params.path.at(-1) === "stats") return stats(db, tenantId, params.path, url);
  const { name } = parse(params.path);
  if (!url.searchParams.has("label") && !url.searchParams.has("version"))
    return Response.json({ ...(await promptVersions(db, tenantId, name)), rights });
  const ref = refOf(url);
  const version = await findVersion(db, tenantId, name, ref);
  if (!version) throw notFound(describeRef(name, ref));
  return Response.json({ version });
});

/**
 * GET /api/prompts/{name}/stats?days=N (7 by default, at most 90): each version's calls, failure rate, cost, cost
 * per call and p50/p95 latency from the ledger, to compare versions.
 */
async function stats(db: Database, tenantId: string, path: string[], url: URL): Promise<Response> {
  const { name } = parse(path, "stats");
  const raw = url.searchParams.get("days") ?? "7";
  if (!/^\d{1,2}$/.test(raw) || Number(raw) < 1 || Number(raw) > 90)
    throw new AppError("validation_failed", "the request is invalid", {
      fields: { days: ["a number of days from 1 to 90"] },
    });
  return Response.json({
    name,
    days: Number(raw),
    versions: await promptVersionStats(db, tenantId, name, Number(raw)),
  });
}

/** Moves a label: `{version}`. `production` is for tenant admins; `latest` is kept by the store. */
export const PUT = withUser<Params>(async (req, { auth, params, requestId }) => {
  const { name, arg } = parse(params.path, "labels");
  const label = labelName.safeParse(arg);
  if (!label.success)
    throw new AppError("validation_failed", "the request is invalid", {
      fields: { label: [label.error.issues[0]!.message] },
    });
  const input = await readJson(req, moveLabelInput);
  const db = await getDb();
  const { tenantId, rights } = promptAccess(auth);
  return Response.json(
    await moveLabel(db, tenantId, name, label.data, input.version, actorOf(auth, requestId), rights),
  );
});

/** The playground: runs a version with sample variables against an alias, a metered call (source playground). */
export const POST = withUser<Params>(async (req, { auth, params }) => {
  const { name } = parse(params.path, "run");
  const input = await readJson(req, playgroundInput);
  const db = await getDb();
  const { tenantId } = promptAccess(auth);
  const ref: VersionRef =
    input.version !== undefined ? { version: input.version } : input.label ? { label: input.label } : {};
  const version = await findVersion(db, tenantId, name, ref);
  if (!version) throw notFound(describeRef(name, ref));
  const app = container();
  const run = await runPlayground(
    { gateway: app.gateway, pipeline: app.pipeline, recorder: app.recorder },
    { tenantId, userId: auth.user.id },
    version,
    { variables: input.variables, model: input.model },
    req.signal,
  );
  return Response.json({ run, version: { name: version.name, version: version.version } });
});

/** Archives a version no label points at (409 when one does); nothing is deleted. */
export const DELETE = withUser<Params>(async (_req, { auth, params, requestId }) => {
  const { name, arg } = parse(params.path, "versions");
  if (!arg || !/^\d{1,9}$/.test(arg)) throw notFound("version");
  const db = await getDb();
  const { tenantId, rights } = promptAccess(auth);
  await archiveVersion(db, tenantId, name, Number(arg), actorOf(auth, requestId), rights);
  return Response.json({ archived: { name, version: Number(arg) } });
});
