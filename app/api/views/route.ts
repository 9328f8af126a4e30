import { getDb } from "@/db";
import { savedViewInput, viewsQuery } from "@/features/saved-views/contracts";
import { checkViewState, createSavedView, listSavedViews, viewerOf } from "@/features/saved-views/server";
import { activeTenantOrThrow, withUser } from "@/lib/auth/guards";
import { actorOf } from "@/lib/changes/changes";
import { readJson } from "@/lib/http/route";
import { container } from "@/server/container";

/** The caller's views of a page and the tenant's shared ones, with the default that opens it. */
export const GET = withUser(async (req, { auth }) => {
  const { page } = viewsQuery.parse(Object.fromEntries(new URL(req.url).searchParams));
  // The page's own rules: 404 for an unknown page, 403 for one the caller's role does not open.
  container().pages.open(page, auth);
  return Response.json(await listSavedViews(await getDb(), viewerOf(auth, activeTenantOrThrow(auth)), page));
});

/** Saves a view of a page the caller may open; its state is checked against the page (422 naming the field). */
export const POST = withUser(async (req, { auth, requestId }) => {
  const input = await readJson(req, savedViewInput);
  const { page } = container().pages.open(input.page, auth);
  checkViewState(input.state, page, auth.user.isSuperAdmin);
  const view = await createSavedView(
    await getDb(),
    viewerOf(auth, activeTenantOrThrow(auth)),
    input,
    actorOf(auth, requestId),
  );
  return Response.json({ view }, { status: 201 });
});
