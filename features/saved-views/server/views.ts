// Saved views of the schema pages: a user's own, or shared with the tenant by its admins; a default per page for
// the user (their own) and for the tenant (a shared one), the user's winning. Every query names the tenant.
import "server-only";
import { and, asc, desc, eq, ne, or, sql } from "drizzle-orm";
import type { Database, Executor } from "@/db";
import { type SavedView, savedView } from "@/db/schema";
import type {
  SavedViewInput,
  SavedViewList,
  SavedViewPatch,
  SavedViewView,
} from "@/features/saved-views/contracts";
import { VIEWS_PER_PAGE_MAX } from "@/features/saved-views/contracts";
import { isTenantAdmin } from "@/lib/auth/access";
import type { TenantAccess, UserContext } from "@/lib/auth/users";
import { type Actor, recordChange } from "@/lib/changes/changes";
import { AppError, forbidden, notFound } from "@/lib/core/errors/app-error";

/** Who asks: the tenant they act in, themselves, and whether they are its admin (or the super admin). */
export type Viewer = { tenantId: string; userId: string; admin: boolean };

/** The most views one list answers: the caller's (50) and the tenant's shared ones, newest names first kept. */
const LIST_MAX = 200;

export const savedViewView = (v: SavedView, userId: string): SavedViewView => ({
  id: v.id,
  page: v.page,
  name: v.name,
  shared: v.shared,
  isDefault: v.isDefault,
  state: v.state,
  mine: v.userId === userId,
  createdAt: v.createdAt.toISOString(),
  updatedAt: v.updatedAt.toISOString(),
});

const logged = (v: SavedView) => ({
  page: v.page,
  name: v.name,
  shared: v.shared,
  isDefault: v.isDefault,
  state: v.state,
});

/** What the caller may see: their own views and the tenant's shared ones. */
const visibleTo = (viewer: Viewer) =>
  and(eq(savedView.tenantId, viewer.tenantId), or(eq(savedView.userId, viewer.userId), savedView.shared));

const duplicateName = (name: string) =>
  new AppError("conflict", `you have a view named "${name}" on this page already`, {
    fields: { name: ["you have a view of this name on this page"] },
  });

/** The caller's and the tenant's shared views of a page (shared first, then by name) and the effective default. */
export async function listSavedViews(db: Database, viewer: Viewer, page: string): Promise<SavedViewList> {
  const rows = await db
    .select()
    .from(savedView)
    .where(and(visibleTo(viewer), eq(savedView.page, page)))
    .orderBy(desc(savedView.shared), asc(savedView.name), asc(savedView.id))
    .limit(LIST_MAX);
  const own = rows.find((v) => v.isDefault && !v.shared && v.userId === viewer.userId);
  const tenant = rows.find((v) => v.isDefault && v.shared);
  return {
    views: rows.map((v) => savedViewView(v, viewer.userId)),
    defaultId: (own ?? tenant)?.id ?? null,
    canShare: viewer.admin,
  };
}

/** The view if the caller may see it (another tenant's, or another user's private one, is a 404). */
async function visibleViewOrThrow(db: Executor, viewer: Viewer, id: string): Promise<SavedView> {
  const [row] = await db
    .select()
    .from(savedView)
    .where(and(visibleTo(viewer), eq(savedView.id, id)))
    .limit(1);
  if (!row) throw notFound("view");
  return row;
}

/** The page of a view the caller may see, so the route can check the caller may still open that page. */
export async function viewPageOf(db: Database, viewer: Viewer, id: string): Promise<string> {
  return (await visibleViewOrThrow(db, viewer, id)).page;
}

/**
 * Clears the default this view is about to take over: the tenant's shared default of the page, or the owner's
 * own default of the page. Runs in the transaction that sets the new one, so there is never two or none between.
 */
async function clearDefault(tx: Executor, view: Pick<SavedView, "tenantId" | "page" | "userId" | "shared">) {
  const scope = view.shared
    ? and(eq(savedView.shared, true))
    : and(eq(savedView.shared, false), eq(savedView.userId, view.userId));
  await tx
    .update(savedView)
    .set({ isDefault: false, updatedAt: new Date() })
    .where(
      and(
        eq(savedView.tenantId, view.tenantId),
        eq(savedView.page, view.page),
        eq(savedView.isDefault, true),
        scope,
      ),
    );
}

async function nameTaken(tx: Executor, viewer: Viewer, page: string, name: string, except?: string) {
  const [row] = await tx
    .select({ id: savedView.id })
    .from(savedView)
    .where(
      and(
        eq(savedView.tenantId, viewer.tenantId),
        eq(savedView.userId, viewer.userId),
        eq(savedView.page, page),
        eq(savedView.name, name),
        except ? ne(savedView.id, except) : undefined,
      ),
    )
    .limit(1);
  return row !== undefined;
}

/**
 * Saves a new view for the caller: 409 for a name they use on the page or past 50 views; sharing it (or making
 * it the tenant's default) is for tenant admins (403). A shared view's creation is logged in the admin changes.
 * `input` is already checked against the page (checkViewState).
 */
export async function createSavedView(
  db: Database,
  viewer: Viewer,
  input: SavedViewInput,
  actor: Actor,
): Promise<SavedViewView> {
  const shared = input.shared === true;
  if (shared && !viewer.admin) throw forbidden("only tenant admins share views with the tenant");
  return db.transaction(async (tx) => {
    const [count] = await tx
      .select({ n: sql<number>`count(*)::int` })
      .from(savedView)
      .where(
        and(
          eq(savedView.tenantId, viewer.tenantId),
          eq(savedView.userId, viewer.userId),
          eq(savedView.page, input.page),
        ),
      );
    if ((count?.n ?? 0) >= VIEWS_PER_PAGE_MAX)
      throw new AppError(
        "conflict",
        `you keep at most ${VIEWS_PER_PAGE_MAX} views of a page: delete one first`,
      );
    if (await nameTaken(tx, viewer, input.page, input.name)) throw duplicateName(input.name);
    const isDefault = input.isDefault === true;
    const values = { tenantId: viewer.tenantId, userId: viewer.userId, page: input.page, shared };
    if (isDefault) await clearDefault(tx, values);
    const [row] = await tx
      .insert(savedView)
      .values({ ...values, name: input.name, isDefault, state: input.state })
      .onConflictDoNothing({
        target: [savedView.tenantId, savedView.page, savedView.userId, savedView.name],
      })
      .returning();
    if (!row) throw duplicateName(input.name);
    if (row.shared)
      await recordChange(tx, actor, {
        tenantId: viewer.tenantId,
        action: "saved_view.created",
        objectType: "saved_view",
        objectId: row.id,
        before: null,
        after: logged(row),
      });
    return savedViewView(row, viewer.userId);
  });
}

/**
 * The caller may change (or delete) a view they made while it is private; a shared view (before or after the
 * change) only a tenant admin may. A view they cannot see is 404.
 */
function mayChange(viewer: Viewer, before: SavedView, sharedAfter: boolean) {
  if (before.shared || sharedAfter) {
    if (!viewer.admin) throw forbidden("only tenant admins change the tenant's shared views");
    return;
  }
  if (before.userId !== viewer.userId) throw notFound("view");
}

/** Renames, restates, shares or unshares a view, or makes it (or stops it being) a default. */
export async function updateSavedView(
  db: Database,
  viewer: Viewer,
  id: string,
  patch: SavedViewPatch,
  actor: Actor,
): Promise<SavedViewView> {
  return db.transaction(async (tx) => {
    const before = await visibleViewOrThrow(tx, viewer, id);
    const shared = patch.shared ?? before.shared;
    mayChange(viewer, before, shared);
    const owner: Viewer = { ...viewer, userId: before.userId };
    if (patch.name !== undefined && (await nameTaken(tx, owner, before.page, patch.name, id)))
      throw duplicateName(patch.name);
    const isDefault = patch.isDefault ?? before.isDefault;
    // A default that moves between the user's and the tenant's takes over there.
    if (isDefault && (!before.isDefault || shared !== before.shared))
      await clearDefault(tx, { tenantId: viewer.tenantId, page: before.page, userId: before.userId, shared });
    const [row] = await tx
      .update(savedView)
      .set({
        name: patch.name ?? before.name,
        state: patch.state ?? before.state,
        shared,
        isDefault,
        updatedAt: new Date(),
      })
      .where(and(eq(savedView.tenantId, viewer.tenantId), eq(savedView.id, id)))
      .returning();
    if (before.shared || row!.shared)
      await recordChange(tx, actor, {
        tenantId: viewer.tenantId,
        action: "saved_view.updated",
        objectType: "saved_view",
        objectId: id,
        before: logged(before),
        after: logged(row!),
      });
    return savedViewView(row!, viewer.userId);
  });
}

/** Deletes a view (the same rules as changing it); a shared view's deletion is logged. */
export async function deleteSavedView(db: Database, viewer: Viewer, id: string, actor: Actor): Promise<void> {
  await db.transaction(async (tx) => {
    const before = await visibleViewOrThrow(tx, viewer, id);
    mayChange(viewer, before, before.shared);
    await tx.delete(savedView).where(and(eq(savedView.tenantId, viewer.tenantId), eq(savedView.id, id)));
    if (before.shared)
      await recordChange(tx, actor, {
        tenantId: viewer.tenantId,
        action: "saved_view.deleted",
        objectType: "saved_view",
        objectId: id,
        before: logged(before),
        after: null,
      });
  });
}

/** The caller as a viewer of saved views, inside their active tenant (the route's activeTenantOrThrow). */
export function viewerOf(auth: UserContext, tenant: TenantAccess): Viewer {
  return { tenantId: tenant.id, userId: auth.user.id, admin: isTenantAdmin(auth) };
}
