import { describe, expect, it } from "vitest";
import {
  EMPTY_LAYOUT,
  isShownIn,
  layoutFromView,
  layoutToView,
  moveColumn,
  orderColumns,
  parseLayout,
  togglePin,
  toggleShown,
} from "@/features/admin-tables/components/column-layout";
import type { ColumnDef } from "@/features/admin-tables/contracts";

const column = (field: string, defaultHidden = false): ColumnDef => ({
  field,
  label: { en: field, zh: field },
  cell: "text",
  ...(defaultHidden ? { defaultHidden } : {}),
});
const COLUMNS = [
  column("time"),
  column("caller"),
  column("status"),
  column("cost"),
  column("feedback", true),
];
const fields = (list: ColumnDef[]) => list.map((c) => c.field);

describe("column order, pinning and visibility", () => {
  it("keeps the schema's order until the viewer moves a column, within the ends", () => {
    expect(fields(orderColumns(COLUMNS, EMPTY_LAYOUT))).toEqual([
      "time",
      "caller",
      "status",
      "cost",
      "feedback",
    ]);
    const down = moveColumn(COLUMNS, EMPTY_LAYOUT, "caller", 1);
    expect(fields(orderColumns(COLUMNS, down))).toEqual(["time", "status", "caller", "cost", "feedback"]);
    const up = moveColumn(COLUMNS, down, "caller", -1);
    expect(fields(orderColumns(COLUMNS, up))).toEqual(["time", "caller", "status", "cost", "feedback"]);
    expect(moveColumn(COLUMNS, EMPTY_LAYOUT, "time", -1)).toBe(EMPTY_LAYOUT);
    expect(moveColumn(COLUMNS, EMPTY_LAYOUT, "feedback", 1)).toBe(EMPTY_LAYOUT);
  });

  it("puts pinned columns first, in pin order, and moves a column only among its group", () => {
    const one = togglePin(COLUMNS, EMPTY_LAYOUT, "status");
    const two = togglePin(COLUMNS, one, "cost");
    expect(fields(orderColumns(COLUMNS, two))).toEqual(["status", "cost", "time", "caller", "feedback"]);
    expect(two.pinned).toEqual(["status", "cost"]);
    // The first unpinned column does not jump over the pinned ones, nor the pinned past the rest.
    expect(moveColumn(COLUMNS, two, "time", -1)).toBe(two);
    expect(moveColumn(COLUMNS, two, "cost", 1)).toBe(two);
    const swapped = moveColumn(COLUMNS, two, "cost", -1);
    expect(fields(orderColumns(COLUMNS, swapped))).toEqual(["cost", "status", "time", "caller", "feedback"]);
    // Unpinned, a column leads the unpinned ones.
    const unpinned = togglePin(COLUMNS, swapped, "cost");
    expect(unpinned.pinned).toEqual(["status"]);
    expect(fields(orderColumns(COLUMNS, unpinned))).toEqual(["status", "cost", "time", "caller", "feedback"]);
    expect(togglePin(COLUMNS, EMPTY_LAYOUT, "nope")).toBe(EMPTY_LAYOUT);
  });

  it("remembers only changes to visibility, and a column the schema gains later gets its default", () => {
    const shown = toggleShown(EMPTY_LAYOUT, COLUMNS[4]!);
    expect(shown.shown).toEqual({ feedback: true });
    expect(toggleShown(shown, COLUMNS[4]!).shown).toEqual({});
    const moved = moveColumn(COLUMNS, EMPTY_LAYOUT, "time", 1);
    const grown = [...COLUMNS, column("latency")];
    expect(fields(orderColumns(grown, moved)).at(-1)).toBe("latency");
  });

  it("reads the stored layout, the older form (field → shown) too, and ignores junk", () => {
    expect(parseLayout({ feedback: true, cost: false })).toEqual({
      shown: { feedback: true, cost: false },
      order: [],
      pinned: [],
    });
    expect(parseLayout({ shown: { cost: false, x: "y" }, order: ["cost", 3, "cost"], pinned: "no" })).toEqual(
      {
        shown: { cost: false },
        order: ["cost"],
        pinned: [],
      },
    );
    expect(parseLayout([1, 2])).toEqual(EMPTY_LAYOUT);
    expect(parseLayout(null)).toEqual(EMPTY_LAYOUT);
  });

  it("carries the layout through a saved view and back", () => {
    let layout = togglePin(COLUMNS, EMPTY_LAYOUT, "cost");
    layout = toggleShown(layout, COLUMNS[1]!);
    layout = toggleShown(layout, COLUMNS[4]!);
    layout = moveColumn(COLUMNS, layout, "status", -1);
    const view = layoutToView(COLUMNS, layout);
    expect(view).toEqual({
      columns: ["cost", "time", "status", "caller", "feedback"],
      hidden: ["caller"],
      pinned: ["cost"],
    });
    const back = layoutFromView(COLUMNS, view)!;
    expect(fields(orderColumns(COLUMNS, back))).toEqual(view.columns);
    expect(COLUMNS.filter((c) => !isShownIn(back, c)).map((c) => c.field)).toEqual(["caller"]);
    expect(back.pinned).toEqual(["cost"]);
    // A column the view never knew keeps its default; unknown fields are dropped; no columns is no change.
    const later = layoutFromView([...COLUMNS, column("latency")], {
      ...view,
      columns: [...view.columns, "gone"],
    })!;
    expect(later.order).not.toContain("gone");
    expect(isShownIn(later, column("latency"))).toBe(true);
    expect(layoutFromView(COLUMNS, {})).toBeNull();
  });
});
