// What the saved views routes take and answer (GET/POST /api/views, PATCH/DELETE /api/views/{id}), shared by the
// routes, the Views menu and the OpenAPI document. Browser-safe: zod and plain types only.
import { z } from "@/lib/core/schema/zod";

export const VIEW_NAME_MAX = 80;
/** A user keeps at most this many views of one page (their shared ones included). */
export const VIEWS_PER_PAGE_MAX = 50;
/** A view's state, as JSON, is at most this many bytes. */
export const VIEW_STATE_MAX_BYTES = 16 * 1024;
const FIELD_MAX = 100;
const LIST_MAX = 100;
const FILTERS_MAX = 50;
const VALUE_MAX = 1_000;

const fieldName = z.string().min(1, "must not be empty").max(FIELD_MAX, `at most ${FIELD_MAX} characters`);
const fieldList = z.array(fieldName).max(LIST_MAX, `at most ${LIST_MAX} columns`);

/**
 * What a view remembers: its filters (names without the URL's "f."), the segment and the sort, and its columns
 * (their order, the hidden ones, the pinned ones). The page's own checks (which names it knows) are the server's.
 */
export const savedViewState = z
  .strictObject({
    filters: z
      .record(fieldName, z.string().max(VALUE_MAX, `a filter value is at most ${VALUE_MAX} characters`))
      .refine((f) => Object.keys(f).length <= FILTERS_MAX, `at most ${FILTERS_MAX} filters`)
      .optional(),
    segment: z.string().min(1).max(FIELD_MAX).optional(),
    columns: fieldList.optional(),
    hidden: fieldList.optional(),
    pinned: fieldList.optional(),
    sort: z.strictObject({ field: fieldName, dir: z.enum(["asc", "desc"]) }).optional(),
  })
  .refine(
    (s) => new TextEncoder().encode(JSON.stringify(s)).length <= VIEW_STATE_MAX_BYTES,
    `a view's state is at most ${VIEW_STATE_MAX_BYTES / 1024} KB`,
  );
export type SavedViewStateInput = z.output<typeof savedViewState>;

const viewName = z
  .string()
  .trim()
  .min(1, "a view needs a name")
  .max(VIEW_NAME_MAX, `a view's name is at most ${VIEW_NAME_MAX} characters`);

/** The schema page a view belongs to, by its key (agent-turns, agent-audit…). */
export const viewPage = z.string().min(1, "name the page").max(FIELD_MAX);

export const savedViewInput = z.strictObject({
  page: viewPage,
  name: viewName,
  state: savedViewState,
  /** Shared with the whole tenant (tenant admins only). */
  shared: z.boolean().optional(),
  /** The caller's default of the page; for a shared view, the tenant's default (tenant admins only). */
  isDefault: z.boolean().optional(),
});
export type SavedViewInput = z.output<typeof savedViewInput>;

export const savedViewPatch = z
  .strictObject({
    name: viewName.optional(),
    state: savedViewState.optional(),
    shared: z.boolean().optional(),
    isDefault: z.boolean().optional(),
  })
  .refine((p) => Object.keys(p).length > 0, "change at least one of name, state, shared, isDefault");
export type SavedViewPatch = z.output<typeof savedViewPatch>;

export const viewsQuery = z.object({ page: viewPage });

/** One view as the routes answer it. */
export type SavedViewView = {
  id: string;
  page: string;
  name: string;
  shared: boolean;
  isDefault: boolean;
  state: SavedViewStateInput;
  /** The caller made it (so may change it; a shared one only while they are a tenant admin). */
  mine: boolean;
  createdAt: string;
  updatedAt: string;
};

/** GET /api/views: the caller's views and the tenant's shared ones, and the view that opens by default. */
export type SavedViewList = {
  views: SavedViewView[];
  /** The caller's own default if they set one, else the tenant's shared default, else null. */
  defaultId: string | null;
  /** The caller may share views with the tenant (a tenant admin). */
  canShare: boolean;
};
