// What the governance tools share: their answer budget, the page opener's type, the filter/range/segment
// parameters built from a page's schema, and how a value reads in an answer.
import "server-only";
import { z } from "zod";
import type { Format, PageSchema } from "@/features/admin-tables/contracts";
import type { OpenedPage } from "@/features/admin-tables/server";
import type { ToolContext } from "@/lib/agent/tool";
import { formatMoney } from "@/lib/core/format/money";
import { type Cell, cellValue, FORMAT_TYPE } from "./cells";
import { RANGE_WORDS, TIME_RANGES, type TimeRange, timeFilter } from "./pages";

/** A compact answer stays well under the loop's 8,000-character cut, so the model never reads half a row. */
export const RESULT_BUDGET = 6_000;

export type Open = (key: string, ctx: ToolContext) => OpenedPage;

export const enumOf = (values: string[]) => z.enum(values as [string, ...string[]]);

export const filtersParam = z
  .record(z.string().max(100), z.union([z.string().max(200), z.number()]))
  .refine((f) => Object.keys(f).length <= 20, "at most 20 filters")
  .optional()
  .describe(
    "The page's own filters by name (the schema context lists them): text filters match by contains, select filters take one of their options, a time range is <field>.from / <field>.to (YYYY-MM-DD or an ISO time). Any other name is refused.",
  );
export const rangeParam = z
  .enum(TIME_RANGES)
  .optional()
  .describe(
    "A quick time range on the page's time filter: 1h, 24h, 7d (this week), 30d, month (since the 1st). 7d, 30d and month are whole UTC days.",
  );
export const segmentParam = z
  .string()
  .max(100)
  .optional()
  .describe("One of the page's segments (e.g. the ledger's status: success, failed, stopped, limit)");

export function scopeWords(
  range: TimeRange | undefined,
  page: PageSchema,
  filters: Record<string, string>,
): string {
  if (range) return RANGE_WORDS[range];
  const time = timeFilter(page)?.field;
  const from = time && filters[`${time}.from`];
  const to = time && filters[`${time}.to`];
  if (from && to) return `${from} to ${to}`;
  if (from) return `since ${from}`;
  if (to) return `until ${to}`;
  return "all time";
}

/** How many of the first rows fit the answer's budget beside the rest of it (at least one). */
export function rowsThatFit(rest: Record<string, unknown>, rows: unknown[]): number {
  let n = rows.length;
  while (n > 1 && JSON.stringify({ ...rest, rows: rows.slice(0, n) }).length > RESULT_BUDGET)
    n = Math.max(1, Math.floor(n * 0.8));
  return n;
}

/** A value for reading: money as the pages print it, "unknown" for a sum of money with no priced row. */
export function readable(value: unknown, format: Format): Cell {
  if (format === "money") return formatMoney(value, { empty: "unknown" });
  return cellValue(value, FORMAT_TYPE[format]);
}
