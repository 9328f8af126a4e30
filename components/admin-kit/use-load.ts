"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import { type ApiError, isAbort, toApiError } from "@/lib/client/api";

export type Loaded<T> = {
  data: T | null;
  error: ApiError | null;
  loading: boolean;
  /** Loads again; the data shown stays until the new answer arrives, so forms do not flash empty. */
  reload: () => void;
};

/** Runs `load` on mount and on every reload(); a superseded load is aborted. */
export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>): Loaded<T> {
  const [state, setState] = useState<Omit<Loaded<T>, "reload">>({ data: null, error: null, loading: true });
  const [version, setVersion] = useState(0);
  // The latest loader, without re-running the effect when the caller passes a new closure each render.
  const loadRef = useRef(load);
  useEffect(() => {
    loadRef.current = load;
  });

  useEffect(() => {
    void version;
    const controller = new AbortController();
    setState((s) => ({ ...s, loading: true }));
    loadRef.current(controller.signal).then(
      (data) => setState({ data, error: null, loading: false }),
      (error: unknown) => {
        if (!isAbort(error)) setState((s) => ({ ...s, error: toApiError(error), loading: false }));
      },
    );
    return () => controller.abort();
  }, [version]);

  const reload = useCallback(() => setVersion((v) => v + 1), []);
  return { ...state, reload };
}
