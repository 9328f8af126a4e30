"use client";

import { useEffect, useState } from "react";
import { type ApiError, fetchJson, isAbort, toApiError } from "@/lib/client/api";

export type ApiState<T> = { data: T | null; error: ApiError | null; loading: boolean };

/**
 * GETs `url` whenever it changes (null: nothing to fetch). The previous data stays while the next answer
 * loads, so cards and charts do not flash empty on every filter change; a superseded request is aborted.
 */
export function useApi<T>(url: string | null): ApiState<T> {
  const [state, setState] = useState<ApiState<T>>({ data: null, error: null, loading: url !== null });

  useEffect(() => {
    if (url === null) return;
    const controller = new AbortController();
    setState((s) => ({ ...s, loading: true, error: null }));
    fetchJson<T>(url, controller.signal).then(
      (data) => setState({ data, error: null, loading: false }),
      (error: unknown) => {
        if (!isAbort(error)) setState((s) => ({ ...s, error: toApiError(error), loading: false }));
      },
    );
    return () => controller.abort();
  }, [url]);

  return state;
}
