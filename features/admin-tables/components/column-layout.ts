import type { ColumnDef } from "@/features/admin-tables/contracts";

/**
 * How a viewer laid out a table's columns: only their changes to which are shown (field → shown, so a column
 * added to the schema later gets its default), the order they chose, and the columns pinned to the left.
 */
export type ColumnLayout = { shown: Record<string, boolean>; order: string[]; pinned: string[] };

export const EMPTY_LAYOUT: ColumnLayout = { shown: {}, order: [], pinned: [] };
/** Bounds what a stored or saved layout may hold (a page has a few dozen columns at most). */
const MAX_FIELDS = 100;

const strings = (value: unknown): string[] =>
  Array.isArray(value)
    ? [...new Set(value.filter((v): v is string => typeof v === "string"))].slice(0, MAX_FIELDS)
    : [];

/** Reads a stored layout; the older form (only field → shown) is read as that, anything else as no change. */
export function parseLayout(raw: unknown): ColumnLayout {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return EMPTY_LAYOUT;
  const record = raw as Record<string, unknown>;
  const isNew = "shown" in record || "order" in record || "pinned" in record;
  const shownRaw = isNew ? record.shown : record;
  const shown =
    shownRaw && typeof shownRaw === "object" && !Array.isArray(shownRaw)
      ? Object.fromEntries(
          Object.entries(shownRaw)
            .filter((entry): entry is [string, boolean] => typeof entry[1] === "boolean")
            .slice(0, MAX_FIELDS),
        )
      : {};
  return isNew
    ? { shown, order: strings(record.order), pinned: strings(record.pinned) }
    : { ...EMPTY_LAYOUT, shown };
}

export const isLayoutEmpty = (layout: ColumnLayout) =>
  Object.keys(layout.shown).length === 0 && layout.order.length === 0 && layout.pinned.length === 0;

export const isShownIn = (layout: ColumnLayout, column: ColumnDef) =>
  layout.shown[column.field] ?? !column.defaultHidden;

/**
 * The columns in the viewer's order, pinned ones first (pinned columns stick to the left edge, so they lead):
 * the chosen order for the fields it names, then the others in the schema's order. Unknown fields are dropped.
 */
export function orderColumns(columns: ColumnDef[], layout: ColumnLayout): ColumnDef[] {
  const byField = new Map(columns.map((c) => [c.field, c]));
  const ordered: ColumnDef[] = [];
  const seen = new Set<string>();
  for (const field of [...layout.order, ...columns.map((c) => c.field)]) {
    const column = byField.get(field);
    if (column && !seen.has(field)) {
      seen.add(field);
      ordered.push(column);
    }
  }
  const pinned = new Set(layout.pinned);
  return [...ordered.filter((c) => pinned.has(c.field)), ...ordered.filter((c) => !pinned.has(c.field))];
}

/** Moves a column one place up (-1) or down (+1) among its group (the pinned, or the rest); the ends stay. */
export function moveColumn(
  columns: ColumnDef[],
  layout: ColumnLayout,
  field: string,
  delta: -1 | 1,
): ColumnLayout {
  const order = orderColumns(columns, layout).map((c) => c.field);
  const at = order.indexOf(field);
  const to = at + delta;
  const pinned = new Set(layout.pinned);
  if (at < 0 || to < 0 || to >= order.length || pinned.has(order[to]!) !== pinned.has(field)) return layout;
  [order[at], order[to]] = [order[to]!, order[at]!];
  return { ...layout, order };
}

/** Pins a column to the left (after those already pinned), or unpins it (it leads the unpinned ones). */
export function togglePin(columns: ColumnDef[], layout: ColumnLayout, field: string): ColumnLayout {
  if (!columns.some((c) => c.field === field)) return layout;
  const order = orderColumns(columns, layout).map((c) => c.field);
  const pinned = layout.pinned.includes(field)
    ? layout.pinned.filter((f) => f !== field)
    : [...layout.pinned.filter((f) => order.includes(f)), field];
  const pinnedSet = new Set(pinned);
  // Keep the order as shown: the pinned in pin order, the field just unpinned first among the rest.
  const rest = order.filter((f) => !pinnedSet.has(f));
  const unpinned = !pinnedSet.has(field) ? [field, ...rest.filter((f) => f !== field)] : rest;
  return { ...layout, pinned, order: [...pinned, ...unpinned] };
}

/** Shows or hides a column; back to the schema's default is no change at all. */
export function toggleShown(layout: ColumnLayout, column: ColumnDef): ColumnLayout {
  const shown = !isShownIn(layout, column);
  const next = { ...layout.shown };
  if (shown === !column.defaultHidden) delete next[column.field];
  else next[column.field] = shown;
  return { ...layout, shown: next };
}

/** The layout as a saved view keeps it: every column in order, the hidden ones, the pinned ones. */
export function layoutToView(columns: ColumnDef[], layout: ColumnLayout) {
  const ordered = orderColumns(columns, layout);
  return {
    columns: ordered.map((c) => c.field),
    hidden: ordered.filter((c) => !isShownIn(layout, c)).map((c) => c.field),
    pinned: ordered.filter((c) => layout.pinned.includes(c.field)).map((c) => c.field),
  };
}

/**
 * A saved view's columns as a layout: its order and pins, and as shown every column it does not hide (a column
 * the page gained since keeps its default). A view without columns leaves the viewer's layout alone (null).
 */
export function layoutFromView(
  columns: ColumnDef[],
  view: { columns?: string[]; hidden?: string[]; pinned?: string[] },
): ColumnLayout | null {
  if (!view.columns && !view.hidden && !view.pinned) return null;
  const known = new Set(columns.map((c) => c.field));
  const named = new Set(view.columns ?? []);
  const hidden = new Set(view.hidden ?? []);
  const shown: Record<string, boolean> = {};
  for (const column of columns) {
    const wanted = hidden.has(column.field) ? false : named.has(column.field) ? true : null;
    if (wanted !== null && wanted !== !column.defaultHidden) shown[column.field] = wanted;
  }
  return {
    shown,
    order: (view.columns ?? []).filter((f) => known.has(f)),
    pinned: (view.pinned ?? []).filter((f) => known.has(f)),
  };
}
