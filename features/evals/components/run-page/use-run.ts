"use client";

import { useEffect, useState } from "react";
import { type ApiError, isAbort, toApiError } from "@/lib/client/api";
import { evalsApi } from "../../client";
import { isLive } from "../../compare";
import type { RunView } from "../../contracts";

const POLL_MS = 1000;

/** The run, polled every second while it is queued or running; stops polling once it has ended. */
export function useRun(id: string) {
  const [view, setView] = useState<RunView | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    void tick;
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const load = () =>
      evalsApi.run(id, controller.signal).then(
        (next) => {
          setView(next);
          setError(null);
          if (isLive(next.status)) timer = setTimeout(load, POLL_MS);
        },
        (e: unknown) => {
          if (isAbort(e)) return;
          const failure = toApiError(e);
          setError(failure);
          // A passing network failure: try again; a refusal (404, 403) stays said.
          if (failure.status === 0 || failure.status >= 500) timer = setTimeout(load, POLL_MS * 3);
        },
      );
    void load();
    return () => {
      controller.abort();
      if (timer) clearTimeout(timer);
    };
  }, [id, tick]);
  return { view, error, reload: () => setTick((n) => n + 1) };
}
