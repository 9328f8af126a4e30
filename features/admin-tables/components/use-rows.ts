"use client";

import { useCallback, useLayoutEffect, useRef, useState } from "react";
import type { Row } from "@/features/admin-tables/contracts";
import { type ApiError, fetchJson, isAbort, toApiError } from "@/lib/client/api";
import { type RowCount, type RowsPage, schemaUrl } from "./api";

export type RowsState = {
  rows: Row[];
  nextCursor: string | null;
  /** The first page of the current query is loading (the previous rows stay visible, dimmed). */
  loading: boolean;
  loadingMore: boolean;
  error: ApiError | null;
  count: RowCount | null;
  /** The rows come from a read replica that is behind: what was committed by this time (ISO). */
  asOf: string | null;
};

const INITIAL: RowsState = {
  rows: [],
  nextCursor: null,
  loading: true,
  loadingMore: false,
  error: null,
  count: null,
  asOf: null,
};

/**
 * Keyset-paginated rows: a new query (sort, segment, filters) starts over from the first page; loadMore
 * appends the next page. The total count is its own request, started after the rows request, so the table
 * never waits for it. reload() (after a row action) or a new `refresh` from the parent fetches both again.
 */
export function useRows(
  schemaKey: string,
  apiQuery: string,
  filterQuery: string,
  pageSize: number,
  refresh = 0,
) {
  const [state, setState] = useState<RowsState>(INITIAL);
  const [reloads, setReloads] = useState(0);
  const generation = reloads + refresh;
  // The controller of the current query; loadMore uses it so a page of an old query is never appended.
  const current = useRef<AbortController | null>(null);
  // Two quick clicks must not fetch (and append) the same page twice.
  const moreInFlight = useRef(false);

  // Layout effects, not passive ones: children's effects run before the parent's, so the cards' and charts'
  // requests would otherwise leave first; layout effects all run before any passive effect.
  useLayoutEffect(() => {
    void generation;
    const controller = new AbortController();
    current.current = controller;
    moreInFlight.current = false;
    setState((s) => ({ ...s, loading: true, loadingMore: false, error: null }));
    const url = schemaUrl(schemaKey, "rows", apiQuery, { limit: String(pageSize) });
    fetchJson<RowsPage>(url, controller.signal).then(
      (page) =>
        setState((s) => ({
          ...s,
          rows: page.rows,
          nextCursor: page.nextCursor,
          asOf: page.asOf ?? null,
          loading: false,
        })),
      (error: unknown) => {
        if (isAbort(error)) return;
        setState((s) => ({ ...s, rows: [], nextCursor: null, loading: false, error: toApiError(error) }));
      },
    );
    return () => controller.abort();
  }, [schemaKey, apiQuery, pageSize, generation]);

  // Declared after the rows effect so its request starts second; a sort change does not refetch it.
  useLayoutEffect(() => {
    void generation;
    const controller = new AbortController();
    setState((s) => ({ ...s, count: null }));
    fetchJson<RowCount>(schemaUrl(schemaKey, "count", filterQuery), controller.signal).then(
      (count) => setState((s) => ({ ...s, count })),
      // The count is a nicety: when it fails, the table simply shows how many rows it has.
      () => undefined,
    );
    return () => controller.abort();
  }, [schemaKey, filterQuery, generation]);

  const loadMore = useCallback(() => {
    const controller = current.current;
    const cursor = state.nextCursor;
    if (!controller || !cursor || state.loading || moreInFlight.current) return;
    moreInFlight.current = true;
    setState((s) => ({ ...s, loadingMore: true, error: null }));
    const url = schemaUrl(schemaKey, "rows", apiQuery, { cursor, limit: String(pageSize) });
    fetchJson<RowsPage>(url, controller.signal).then(
      (page) => {
        moreInFlight.current = false;
        setState((s) => ({
          ...s,
          rows: [...s.rows, ...page.rows],
          nextCursor: page.nextCursor,
          loadingMore: false,
        }));
      },
      (error: unknown) => {
        if (isAbort(error)) return;
        moreInFlight.current = false;
        setState((s) => ({ ...s, loadingMore: false, error: toApiError(error) }));
      },
    );
  }, [schemaKey, apiQuery, pageSize, state.nextCursor, state.loading]);

  const reload = useCallback(() => setReloads((n) => n + 1), []);
  return { ...state, loadMore, reload };
}
