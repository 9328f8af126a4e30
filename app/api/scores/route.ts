import { getDb } from "@/db";
import { scoreInput, scoresQuery } from "@/features/scores/contracts";
import { putScore, scoreSourceFor, scoresOfTarget } from "@/features/scores/server";
import { activeTenantOrThrow, isTenantAdmin, type UserContext, withUser } from "@/lib/auth/guards";
import { readJson } from "@/lib/http/route";

/** A member reaches their own turns only (as the drawer shows them); an admin every turn of the tenant. */
const reach = (auth: UserContext) => (isTenantAdmin(auth) ? {} : { onlyTurnsOf: auth.user.id });

/**
 * The active tenant's scores of one turn (`?turnId=`) or one run (`?runId=`); another tenant's is 404, and so is
 * another person's turn for a member.
 */
export const GET = withUser(async (req, { auth }) => {
  const tenant = activeTenantOrThrow(auth);
  const query = scoresQuery.parse(Object.fromEntries(new URL(req.url).searchParams));
  return Response.json({ scores: await scoresOfTarget(await getDb(), tenant.id, query, reach(auth)) });
});

/**
 * Puts a score on a turn or a run of the active tenant (a member: of their own turns): `human` by default (a
 * person's own, which sending again changes: 200), `api` or `eval` for tenant admins only. 201 when created; 422 naming the field when the value
 * does not fit the tenant's score config.
 */
export const POST = withUser(async (req, { auth }) => {
  const tenant = activeTenantOrThrow(auth);
  const input = await readJson(req, scoreInput);
  const source = scoreSourceFor(isTenantAdmin(auth) ? "admin" : "member", input.source);
  const author = { tenantId: tenant.id, userId: auth.user.id };
  const put = await putScore(await getDb(), author, input, source, reach(auth));
  return Response.json({ score: put.score }, { status: put.created ? 201 : 200 });
});
