"use client";

import {
  flexRender,
  getCoreRowModel,
  type ColumnDef as TableColumnDef,
  useReactTable,
} from "@tanstack/react-table";
import { type MouseEvent, type ReactNode, useLayoutEffect, useMemo, useRef, useState } from "react";
import { useI18n } from "@/components/i18n";
import type { CellType, ColumnDef, Row } from "@/features/admin-tables/contracts";
import { CellValue } from "./cells";
import { pick } from "./format";
import type { SortState } from "./use-page-query";

const NUMERIC: CellType[] = ["duration", "tokens", "money"];
const ACTIONS = "__actions";
/** Numbers (in tabular figures) and the row actions line up on the right, unless a column says otherwise. */
const alignOfColumn = (id: string, col: ColumnDef | undefined) => {
  if (id === ACTIONS) return "text-right";
  const align = col?.align ?? (col && NUMERIC.includes(col.cell) ? "right" : "left");
  return align === "right" ? "text-right tabular-nums" : "text-left";
};

/**
 * The one table of every schema page. Sorting and paging happen on the server (keyset), so the table model
 * is manual: it renders the rows it is given in the order given and reports header clicks.
 */
export function DataTable(props: {
  caption: string;
  columns: ColumnDef[];
  idField: string;
  rows: Row[];
  sort: SortState;
  loading: boolean;
  onSort: (field: string) => void;
  /** Absent when the page has no detail view. */
  onOpen?: (id: string) => void;
  /** The row's action buttons, in a last column; absent when the page has no row actions. */
  renderActions?: (row: Row, id: string) => ReactNode;
  /** Columns that stay on the left while the table scrolls sideways (they come first in `columns`). */
  pinned?: ReadonlySet<string>;
}) {
  const { t, locale } = useI18n();
  const { columns: schemaColumns, idField, onOpen, renderActions } = props;

  const columns = useMemo<TableColumnDef<Row>[]>(
    () =>
      schemaColumns.map((col) => ({
        id: col.field,
        accessorFn: (row) => row[col.field],
        header: pick(col.label, locale),
        enableSorting: col.sortable === true,
        cell: (ctx) => (
          <CellValue
            cell={col.cell}
            field={col.field}
            value={ctx.getValue()}
            row={ctx.row.original}
            href={col.href}
            width={col.width}
          />
        ),
      })),
    [schemaColumns, locale],
  );
  const allColumns = useMemo<TableColumnDef<Row>[]>(
    () =>
      renderActions
        ? [
            ...columns,
            {
              id: ACTIONS,
              header: () => <span className="sr-only">{t("schema.actions")}</span>,
              enableSorting: false,
              cell: (ctx) => renderActions(ctx.row.original, ctx.row.id),
            },
          ]
        : columns,
    [columns, renderActions, t],
  );
  const byField = useMemo(() => new Map(schemaColumns.map((c) => [c.field, c])), [schemaColumns]);

  const table = useReactTable({
    data: props.rows,
    columns: allColumns,
    getCoreRowModel: getCoreRowModel(),
    manualSorting: true,
    manualPagination: true,
    manualFiltering: true,
    state: { sorting: [{ id: props.sort.field, desc: props.sort.direction === "desc" }] },
    getRowId: (row, index) => String(row[idField] ?? index),
  });

  const open = (e: MouseEvent, id: string) => {
    // Links and buttons inside the row do their own thing; selecting text is not a click either.
    if ((e.target as HTMLElement).closest("a, button") || window.getSelection()?.toString()) return;
    onOpen?.(id);
  };

  const rows = table.getRowModel().rows;
  const pinned = props.pinned;
  const pinnedFields = useMemo(
    () => schemaColumns.filter((c) => pinned?.has(c.field)).map((c) => c.field),
    [schemaColumns, pinned],
  );
  // Each pinned column sticks at the summed width of the pinned columns before it, measured from the header.
  const headRef = useRef<HTMLTableRowElement>(null);
  const [lefts, setLefts] = useState<Record<string, number>>({});
  useLayoutEffect(() => {
    // Rows and the locale change the headers' widths.
    void props.rows;
    void locale;
    const cells = headRef.current?.children;
    if (!cells) return;
    const next: Record<string, number> = {};
    let left = 0;
    for (const field of pinnedFields) {
      next[field] = left;
      const cell = [...cells].find((c) => (c as HTMLElement).dataset.field === field) as
        | HTMLElement
        | undefined;
      left += cell?.offsetWidth ?? 0;
    }
    setLefts((current) => (JSON.stringify(current) === JSON.stringify(next) ? current : next));
  }, [pinnedFields, props.rows, locale]);
  const lastPinned = pinnedFields.at(-1);
  const stick = (field: string, head: boolean) =>
    field in lefts && pinned?.has(field)
      ? {
          className: `sticky z-10 ${head ? "bg-slate-50 dark:bg-slate-800" : "bg-white group-hover:bg-indigo-50 dark:bg-slate-900 dark:group-hover:bg-slate-800"} ${field === lastPinned ? "shadow-[1px_0_0_0_rgb(203_213_225)] dark:shadow-[1px_0_0_0_rgb(51_65_85)]" : ""}`,
          style: { left: lefts[field] },
        }
      : { className: "", style: undefined };
  // relative: the actions column's sr-only header is positioned; it must scroll (and clip) with the table.
  return (
    <div
      data-testid="table-scroll"
      className="relative max-w-full overflow-x-auto rounded-lg border border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900"
    >
      <table aria-busy={props.loading} className="min-w-full text-sm">
        <caption className="sr-only">{props.caption}</caption>
        <thead className="border-b border-slate-200 bg-slate-50 text-xs text-slate-600 dark:border-slate-800 dark:bg-slate-800/50 dark:text-slate-300">
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id} ref={headRef}>
              {group.headers.map((header) => {
                const col = byField.get(header.column.id);
                const sticky = stick(header.column.id, true);
                const sorted = header.column.getIsSorted();
                const label = flexRender(header.column.columnDef.header, header.getContext());
                return (
                  <th
                    key={header.id}
                    scope="col"
                    data-field={header.column.id}
                    data-pinned={sticky.style ? true : undefined}
                    style={sticky.style}
                    aria-sort={sorted === "asc" ? "ascending" : sorted === "desc" ? "descending" : undefined}
                    className={`px-3 py-2 font-medium whitespace-nowrap ${alignOfColumn(header.column.id, col)} ${sticky.className}`}
                  >
                    {header.column.getCanSort() ? (
                      <button
                        type="button"
                        data-testid={`sort-${header.column.id}`}
                        title={col ? t("schema.sortBy", { label: pick(col.label, locale) }) : undefined}
                        onClick={() => props.onSort(header.column.id)}
                        className="inline-flex items-center gap-1 rounded hover:text-indigo-600 dark:hover:text-indigo-400"
                      >
                        {label}
                        <span aria-hidden="true" className={sorted ? "" : "opacity-30"}>
                          {sorted === "asc" ? "▲" : "▼"}
                        </span>
                      </button>
                    ) : (
                      label
                    )}
                  </th>
                );
              })}
            </tr>
          ))}
        </thead>
        <tbody
          className={`divide-y divide-slate-100 dark:divide-slate-800 ${props.loading ? "opacity-60" : ""}`}
        >
          {rows.map((row) => (
            <tr
              key={row.id}
              data-testid="data-row"
              data-row-id={row.id}
              tabIndex={onOpen ? 0 : undefined}
              onClick={onOpen ? (e) => open(e, row.id) : undefined}
              onKeyDown={(e) => {
                if (onOpen && e.target === e.currentTarget && (e.key === "Enter" || e.key === " ")) {
                  e.preventDefault();
                  onOpen(row.id);
                }
              }}
              className={
                onOpen
                  ? "group cursor-pointer hover:bg-indigo-50/60 focus:outline-2 focus:outline-indigo-500 dark:hover:bg-slate-800/60"
                  : ""
              }
            >
              {row.getVisibleCells().map((cell) => {
                const sticky = stick(cell.column.id, false);
                return (
                  <td
                    key={cell.id}
                    data-field={cell.column.id}
                    data-pinned={sticky.style ? true : undefined}
                    style={sticky.style}
                    className={`px-3 py-2 align-top whitespace-nowrap ${alignOfColumn(cell.column.id, byField.get(cell.column.id))} ${sticky.className}`}
                  >
                    {flexRender(cell.column.columnDef.cell, cell.getContext())}
                  </td>
                );
              })}
            </tr>
          ))}
          {rows.length === 0 && (
            <tr>
              <td
                colSpan={allColumns.length}
                className="px-3 py-8 text-center text-slate-500 dark:text-slate-400"
              >
                {props.loading ? t("schema.loading") : t("schema.noRows")}
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}
