import type { PageSchema } from "@/features/admin-tables/contracts";
import type { SavedViewStateInput } from "@/features/saved-views/contracts";

const FILTER_PREFIX = "f.";

/** The URL names a view sets: filters, segment and sort (and the open detail, which a view closes). */
const isViewParam = (name: string, prefix: string) =>
  name.startsWith(prefix + FILTER_PREFIX) ||
  name === `${prefix}segment` ||
  name === `${prefix}sort` ||
  name === `${prefix}detail`;

/** Whether the URL already says what to show (a filter, a segment or a sort): then it wins over a default view. */
export function urlHasViewState(params: URLSearchParams, prefix = ""): boolean {
  for (const name of params.keys())
    if (isViewParam(name, prefix) && name !== `${prefix}detail` && params.get(name)?.trim()) return true;
  return false;
}

/**
 * The URL with a view applied: its filters, segment and sort in place of the URL's (a view without a sort is the
 * page's default order), the open detail closed; every other parameter kept.
 */
export function applyViewToParams(
  params: URLSearchParams,
  view: Pick<SavedViewStateInput, "filters" | "segment" | "sort">,
  schema: PageSchema,
  prefix = "",
): URLSearchParams {
  const next = new URLSearchParams();
  for (const [name, value] of params) if (!isViewParam(name, prefix)) next.append(name, value);
  if (view.segment && schema.segments?.values.some((v) => v.value === view.segment))
    next.set(`${prefix}segment`, view.segment);
  for (const [name, value] of Object.entries(view.filters ?? {}))
    if (value.trim()) next.set(prefix + FILTER_PREFIX + name, value);
  const sort = view.sort;
  if (sort && !(sort.field === schema.defaultSort.field && sort.dir === schema.defaultSort.direction))
    next.set(`${prefix}sort`, `${sort.field}:${sort.dir}`);
  return next;
}

/** What a view saves of the page's URL: its filters, the segment and a sort other than the default. */
export function viewStateFromUrl(
  state: {
    filters: Record<string, string>;
    segment: string | null;
    sort: { field: string; direction: "asc" | "desc" };
  },
  schema: PageSchema,
): Pick<SavedViewStateInput, "filters" | "segment" | "sort"> {
  const { sort } = state;
  const isDefaultSort =
    sort.field === schema.defaultSort.field && sort.direction === schema.defaultSort.direction;
  return {
    ...(Object.keys(state.filters).length ? { filters: { ...state.filters } } : {}),
    ...(state.segment ? { segment: state.segment } : {}),
    ...(isDefaultSort ? {} : { sort: { field: sort.field, dir: sort.direction } }),
  };
}
