// Which names a view's state may hold on a page: the page's declared filters (a time range's .from and .to),
// the filters links into pages carry, its columns, its sortable fields and its segments.
import "server-only";
import { filterUrlNames, type PageSchema } from "@/features/admin-tables/contracts";
import type { SavedViewStateInput } from "@/features/saved-views/contracts";
import { AppError, type FieldErrors } from "@/lib/core/errors/app-error";

/**
 * Filters that other pages' links put in the URL (a key's calls, a turn's trail, a run's calls) and the super
 * admin's tenant filters; the page's data route still refuses any its provider does not know.
 */
export const LINK_FILTERS = ["tenantId", "tenant", "apiKeyId", "turnId", "runId"] as const;

export function allowedFilters(page: PageSchema): Set<string> {
  const names = new Set<string>(LINK_FILTERS);
  // Each filter's URL names with their operators (f.x, f.x.not, f.x.gt…, a range's .from and .to).
  for (const filter of page.filters ?? []) for (const name of filterUrlNames(filter)) names.add(name);
  return names;
}

/** The problems of a state on a page, by field ("state.filters.x", "state.columns"…); empty when it fits. */
export function viewStateProblems(
  state: SavedViewStateInput,
  page: PageSchema,
  superAdmin: boolean,
): FieldErrors {
  const problems: FieldErrors = {};
  const add = (field: string, message: string) => {
    problems[field] = [...(problems[field] ?? []), message];
  };
  const filters = allowedFilters(page);
  for (const name of Object.keys(state.filters ?? {}))
    if (!filters.has(name)) add(`state.filters.${name}`, `not a filter of the page "${page.key}"`);
  const columns = new Set(page.columns.filter((c) => superAdmin || !c.superAdminOnly).map((c) => c.field));
  for (const list of ["columns", "hidden", "pinned"] as const) {
    const seen = new Set<string>();
    for (const field of state[list] ?? []) {
      if (!columns.has(field)) add(`state.${list}`, `"${field}" is not a column of the page "${page.key}"`);
      else if (seen.has(field)) add(`state.${list}`, `"${field}" is named twice`);
      seen.add(field);
    }
  }
  if (state.sort) {
    const { field } = state.sort;
    const sortable = page.columns.some(
      (c) => c.field === field && (c.sortable === true || field === page.defaultSort.field),
    );
    if (!sortable) add("state.sort.field", `"${field}" is not a sortable column of the page "${page.key}"`);
  }
  if (state.segment !== undefined && !page.segments?.values.some((v) => v.value === state.segment))
    add("state.segment", `"${state.segment}" is not a segment of the page "${page.key}"`);
  return problems;
}

/** Throws a 422 naming each field of the state the page does not know. */
export function checkViewState(state: SavedViewStateInput, page: PageSchema, superAdmin: boolean): void {
  const problems = viewStateProblems(state, page, superAdmin);
  const fields = Object.keys(problems);
  if (fields.length)
    throw new AppError("validation_failed", `the view does not fit the page: ${fields.join(", ")}`, {
      fields: problems,
    });
}
