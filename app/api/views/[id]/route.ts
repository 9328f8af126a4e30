import { getDb } from "@/db";
import { savedViewPatch } from "@/features/saved-views/contracts";
import {
  checkViewState,
  deleteSavedView,
  updateSavedView,
  viewerOf,
  viewPageOf,
} from "@/features/saved-views/server";
import { activeTenantOrThrow, withUser } from "@/lib/auth/guards";
import { actorOf } from "@/lib/changes/changes";
import { uuidOr404 } from "@/lib/core/schema/uuid";
import { readJson } from "@/lib/http/route";
import { container } from "@/server/container";

/**
 * Renames a view, changes its state, shares or unshares it, or makes it a default: the owner, or a tenant admin
 * for shared views. Another tenant's view, or another user's private one, is 404.
 */
export const PATCH = withUser<{ id: string }>(async (req, { auth, params, requestId }) => {
  const id = uuidOr404(params.id);
  const patch = await readJson(req, savedViewPatch);
  const viewer = viewerOf(auth, activeTenantOrThrow(auth));
  const db = await getDb();
  const { page } = container().pages.open(await viewPageOf(db, viewer, id), auth);
  if (patch.state) checkViewState(patch.state, page, auth.user.isSuperAdmin);
  const view = await updateSavedView(db, viewer, id, patch, actorOf(auth, requestId));
  return Response.json({ view });
});

/** Deletes a view (the same rules as changing it). */
export const DELETE = withUser<{ id: string }>(async (_req, { auth, params, requestId }) => {
  const id = uuidOr404(params.id);
  const viewer = viewerOf(auth, activeTenantOrThrow(auth));
  const db = await getDb();
  container().pages.open(await viewPageOf(db, viewer, id), auth);
  await deleteSavedView(db, viewer, id, actorOf(auth, requestId));
  return new Response(null, { status: 204 });
});
