"use client";

import { useCallback, useEffect, useMemo, useState } from "react";
import type { ColumnDef } from "@/features/admin-tables/contracts";

/** Per viewer and page, so one browser shared by two accounts keeps each one's columns. */
export const columnsStorageKey = (viewerId: string, pageKey: string) =>
  `tollgate.columns.${viewerId}.${pageKey}`;

/** Only the viewer's changes are kept (field → shown), so a column added to the schema later gets its default. */
type Overrides = Record<string, boolean>;

function readOverrides(key: string): Overrides {
  try {
    const parsed = JSON.parse(window.localStorage.getItem(key) ?? "{}") as unknown;
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return {};
    return Object.fromEntries(
      Object.entries(parsed).filter((entry): entry is [string, boolean] => typeof entry[1] === "boolean"),
    );
  } catch {
    return {};
  }
}

function writeOverrides(key: string, overrides: Overrides) {
  try {
    if (Object.keys(overrides).length === 0) window.localStorage.removeItem(key);
    else window.localStorage.setItem(key, JSON.stringify(overrides));
  } catch {
    // localStorage can be unavailable (private mode, full): the choice then lasts until reload.
  }
}

/**
 * Which of a table's columns are shown: the schema's defaults (`defaultHidden`) with the viewer's changes on
 * top, remembered in localStorage. The stored choice is read after the first render (the server cannot see it).
 */
export function useColumnVisibility(columns: ColumnDef[], pageKey: string, viewerId: string) {
  const key = columnsStorageKey(viewerId, pageKey);
  const [overrides, setOverrides] = useState<Overrides>({});
  useEffect(() => setOverrides(readOverrides(key)), [key]);

  const isShown = useCallback(
    (column: ColumnDef) => overrides[column.field] ?? !column.defaultHidden,
    [overrides],
  );
  const visible = useMemo(() => columns.filter(isShown), [columns, isShown]);

  const toggle = useCallback(
    (column: ColumnDef) => {
      setOverrides((current) => {
        const shown = !(current[column.field] ?? !column.defaultHidden);
        const next = { ...current };
        // Back to the default is no override at all.
        if (shown === !column.defaultHidden) delete next[column.field];
        else next[column.field] = shown;
        writeOverrides(key, next);
        return next;
      });
    },
    [key],
  );
  const reset = useCallback(() => {
    writeOverrides(key, {});
    setOverrides({});
  }, [key]);

  return { visible, isShown, toggle, reset, changed: Object.keys(overrides).length > 0 };
}

export type ColumnVisibility = ReturnType<typeof useColumnVisibility>;
