"use client";

import { useCallback, useEffect, useMemo, useState } from "react";
import type { ColumnDef } from "@/features/admin-tables/contracts";
import {
  type ColumnLayout,
  EMPTY_LAYOUT,
  isLayoutEmpty,
  isShownIn,
  layoutFromView,
  layoutToView,
  moveColumn,
  orderColumns,
  parseLayout,
  togglePin,
  toggleShown,
} from "./column-layout";

/** Per viewer and page, so one browser shared by two accounts keeps each one's columns. */
export const columnsStorageKey = (viewerId: string, pageKey: string) =>
  `tollgate.columns.${viewerId}.${pageKey}`;

function readLayout(key: string): ColumnLayout {
  try {
    return parseLayout(JSON.parse(window.localStorage.getItem(key) ?? "{}") as unknown);
  } catch {
    return EMPTY_LAYOUT;
  }
}

function writeLayout(key: string, layout: ColumnLayout) {
  try {
    if (isLayoutEmpty(layout)) window.localStorage.removeItem(key);
    else window.localStorage.setItem(key, JSON.stringify(layout));
  } catch {
    // localStorage can be unavailable (private mode, full): the choice then lasts until reload.
  }
}

/**
 * Which of a table's columns are shown, in which order, and which are pinned to the left: the schema's defaults
 * with the viewer's changes on top, remembered in localStorage (and carried in saved views). The stored choice
 * is read after the first render (the server cannot see it).
 */
export function useColumnVisibility(columns: ColumnDef[], pageKey: string, viewerId: string) {
  const key = columnsStorageKey(viewerId, pageKey);
  const [layout, setLayout] = useState<ColumnLayout>(EMPTY_LAYOUT);
  useEffect(() => setLayout(readLayout(key)), [key]);

  const change = useCallback(
    (next: (current: ColumnLayout) => ColumnLayout) =>
      setLayout((current) => {
        const changed = next(current);
        writeLayout(key, changed);
        return changed;
      }),
    [key],
  );

  const isShown = useCallback((column: ColumnDef) => isShownIn(layout, column), [layout]);
  const ordered = useMemo(() => orderColumns(columns, layout), [columns, layout]);
  const visible = useMemo(() => ordered.filter(isShown), [ordered, isShown]);
  const pinned = useMemo(() => new Set(layout.pinned), [layout.pinned]);

  return {
    /** Every column, in the viewer's order (pinned first). */
    ordered,
    /** The shown columns, in order. */
    visible,
    pinned,
    isShown,
    toggle: useCallback((column: ColumnDef) => change((l) => toggleShown(l, column)), [change]),
    move: useCallback(
      (field: string, delta: -1 | 1) => change((l) => moveColumn(columns, l, field, delta)),
      [change, columns],
    ),
    togglePin: useCallback((field: string) => change((l) => togglePin(columns, l, field)), [change, columns]),
    reset: useCallback(() => change(() => EMPTY_LAYOUT), [change]),
    /** The layout as a saved view keeps it. */
    toView: useCallback(() => layoutToView(columns, layout), [columns, layout]),
    /** Takes a saved view's columns (a view without any leaves the layout as it is). */
    applyView: useCallback(
      (view: { columns?: string[]; hidden?: string[]; pinned?: string[] }) => {
        const next = layoutFromView(columns, view);
        if (next) change(() => next);
      },
      [change, columns],
    ),
    changed: !isLayoutEmpty(layout),
  };
}

export type ColumnVisibility = ReturnType<typeof useColumnVisibility>;
