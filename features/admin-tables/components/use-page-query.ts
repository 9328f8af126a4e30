"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback, useEffect, useMemo, useRef } from "react";
import type { CellType, PageSchema } from "@/features/admin-tables/contracts";
import type { SavedViewStateInput } from "@/features/saved-views/contracts";
import { applyViewToParams } from "./view-url";

type SavedViewUrlState = Pick<SavedViewStateInput, "filters" | "segment" | "sort">;

export type SortState = { field: string; direction: "asc" | "desc" };

/** The page's state as it lives in the URL: `sort`, `segment`, `f.<field>[.from|.to]`, `detail`. */
export type PageUrlState = {
  sort: SortState;
  segment: string | null;
  /** Filter values by name without the "f." prefix ("status", "startedAt.from", "tenantId", "turnId"). */
  filters: Record<string, string>;
  detail: string | null;
  /** sort + segment + filters, in a stable order: the query for rows and export. */
  apiQuery: string;
  /** segment + filters only: counts, metrics and series do not depend on the order. */
  filterQuery: string;
};

const FILTER_PREFIX = "f.";
// Numbers and times read best largest or newest first; text reads best A to Z.
const DESC_FIRST: CellType[] = ["datetime", "duration", "tokens", "money"];

function parseSort(raw: string | null, schema: PageSchema): SortState {
  const sortable = new Set(schema.columns.filter((c) => c.sortable).map((c) => c.field));
  sortable.add(schema.defaultSort.field);
  const at = raw?.lastIndexOf(":") ?? -1;
  if (!raw || at < 1) return schema.defaultSort;
  const field = raw.slice(0, at);
  const direction = raw.slice(at + 1);
  if (!sortable.has(field) || (direction !== "asc" && direction !== "desc")) return schema.defaultSort;
  return { field, direction };
}

/**
 * `prefix` namespaces the URL names ("inv." → inv.sort, inv.f.email) so two lists can share one page; the API
 * query is always unprefixed.
 */
export function readPageState(params: URLSearchParams, schema: PageSchema, prefix = ""): PageUrlState {
  const sort = parseSort(params.get(`${prefix}sort`), schema);
  const rawSegment = params.get(`${prefix}segment`);
  const segment = schema.segments?.values.some((v) => v.value === rawSegment) ? rawSegment : null;
  const filters: Record<string, string> = {};
  // Every f.* param is passed on, not only the declared ones: links may carry extra filters (f.turnId).
  const filterPrefix = prefix + FILTER_PREFIX;
  for (const [name, value] of params) {
    if (name.startsWith(filterPrefix) && value.trim() !== "")
      filters[name.slice(filterPrefix.length)] = value;
  }
  const query = new URLSearchParams();
  if (segment) query.set("segment", segment);
  for (const name of Object.keys(filters).sort()) query.set(FILTER_PREFIX + name, filters[name]!);
  const filterQuery = query.toString();
  query.set("sort", `${sort.field}:${sort.direction}`);
  return {
    sort,
    segment,
    filters,
    detail: params.get(`${prefix}detail`) || null,
    apiQuery: query.toString(),
    filterQuery,
  };
}

/** Reads the page state from the URL and changes it with router.push, so Back restores the previous view. */
export function usePageQuery(schema: PageSchema, prefix = "") {
  const searchParams = useSearchParams();
  const pathname = usePathname();
  const router = useRouter();
  // True while the history entry on top is the one our openDetail pushed: closing then goes Back to it.
  const detailPushed = useRef(false);
  const state = useMemo(
    () => readPageState(new URLSearchParams(searchParams.toString()), schema, prefix),
    [searchParams, schema, prefix],
  );

  // The queries this hook asked the router for that have not landed yet, oldest first. A change builds on the
  // newest of them, not on the URL that has landed, so a click made while the previous navigation is still on
  // its way (a busy machine) is not dropped. When a query lands, it and those before it are done; a URL that is
  // none of them (Back, a link) clears them.
  const pending = useRef<string[]>([]);
  const current = searchParams.toString();
  useEffect(() => {
    const at = pending.current.indexOf(current);
    pending.current = at < 0 ? [] : pending.current.slice(at + 1);
  }, [current]);

  const update = useCallback(
    (mutate: (params: URLSearchParams) => void, mode: "push" | "replace" = "push") => {
      // Unknown params are kept: they may belong to someone else (a link, the tenant, analytics).
      const params = new URLSearchParams(pending.current.at(-1) ?? current);
      mutate(params);
      detailPushed.current = false;
      const search = params.toString();
      pending.current.push(search);
      const href = search ? `${pathname}?${search}` : pathname;
      if (mode === "push") router.push(href, { scroll: false });
      else router.replace(href, { scroll: false });
    },
    [current, pathname, router],
  );

  return useMemo(
    () => ({
      ...state,
      toggleSort(field: string) {
        const { sort } = state;
        const cell = schema.columns.find((c) => c.field === field)?.cell;
        const direction =
          sort.field === field
            ? sort.direction === "asc"
              ? "desc"
              : "asc"
            : cell && DESC_FIRST.includes(cell)
              ? "desc"
              : "asc";
        const isDefault = field === schema.defaultSort.field && direction === schema.defaultSort.direction;
        update((p) =>
          isDefault ? p.delete(`${prefix}sort`) : p.set(`${prefix}sort`, `${field}:${direction}`),
        );
      },
      setSegment(value: string | null) {
        update((p) => (value ? p.set(`${prefix}segment`, value) : p.delete(`${prefix}segment`)));
      },
      /** Sets (or, when empty, removes) each given filter; filters not named are left as they are. */
      applyFilters(values: Record<string, string>) {
        update((p) => {
          for (const [name, value] of Object.entries(values)) {
            if (value.trim() === "") p.delete(prefix + FILTER_PREFIX + name);
            else p.set(prefix + FILTER_PREFIX + name, value.trim());
          }
        });
      },
      /** Shows a saved view: its filters, segment and sort replace the URL's (replace: a default on opening). */
      applyView(view: SavedViewUrlState, mode: "push" | "replace" = "push") {
        update((p) => {
          const next = applyViewToParams(p, view, schema, prefix);
          for (const name of [...p.keys()]) p.delete(name);
          for (const [name, value] of next) p.append(name, value);
        }, mode);
      },
      clearFilters() {
        update((p) => {
          for (const name of [...p.keys()]) if (name.startsWith(prefix + FILTER_PREFIX)) p.delete(name);
        });
      },
      openDetail(id: string) {
        const pushed = !state.detail;
        update((p) => p.set(`${prefix}detail`, id));
        detailPushed.current = pushed;
      },
      // Back when we opened it (so Back after closing goes where the user expects), else replace: a shared
      // link with ?detail= must not lead Back out of the page.
      closeDetail() {
        if (detailPushed.current) {
          detailPushed.current = false;
          router.back();
        } else update((p) => p.delete(`${prefix}detail`), "replace");
      },
    }),
    [state, schema, update, router, prefix],
  );
}

export type PageQueryApi = ReturnType<typeof usePageQuery>;
