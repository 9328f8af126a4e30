import "server-only";
import type { PageQuery, PageSchema } from "@/features/admin-tables/contracts";
import { pageQueryFrom } from "@/features/admin-tables/server";
import { AppError } from "@/lib/core/errors/app-error";
import { filterNames, rangeStart, type TimeRange, timeFilter } from "./pages";

/** What a governance tool's caller may say about a page query: the page's own filters, nothing else. */
export type QueryArgs = {
  filters?: Record<string, string | number>;
  range?: TimeRange;
  segment?: string;
  sort?: string;
  limit?: number;
  cursor?: string;
};

/**
 * A tool's arguments as the page query the page's own data route would parse: checked against the page's
 * declared filters first (an unknown one is refused, naming those it has), then read by the routes' parser
 * (pageQueryFrom), so a tool and the page answer the same query with the same numbers.
 */
export function toolPageQuery(
  page: PageSchema,
  args: QueryArgs,
  now: Date,
): { query: PageQuery; filters: Record<string, string> } {
  const allowed = filterNames(page);
  const filters: Record<string, string> = {};
  for (const [name, raw] of Object.entries(args.filters ?? {})) {
    const value = String(raw).trim();
    if (!allowed.includes(name))
      throw new AppError(
        "validation_failed",
        allowed.length
          ? `unknown filter "${name}" for page ${page.key}; its filters are: ${allowed.join(", ")}`
          : `page ${page.key} has no filters`,
      );
    const def = page.filters?.find((f) => f.field === name);
    if (def?.type === "select" && value && !def.options.some((o) => o.value === value))
      throw new AppError(
        "validation_failed",
        `filter "${name}" of page ${page.key} is one of: ${def.options.map((o) => o.value).join(", ")}`,
      );
    if (value) filters[name] = value;
  }
  if (args.range) {
    const time = timeFilter(page);
    if (!time)
      throw new AppError("validation_failed", `page ${page.key} has no time range to apply "range" to`);
    // An explicit bound wins over the quick range.
    if (!filters[`${time.field}.from`] && !filters[`${time.field}.to`])
      filters[`${time.field}.from`] = rangeStart(args.range, now);
  }
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) params.set(`f.${name}`, value);
  if (args.segment) params.set("segment", args.segment);
  if (args.sort) params.set("sort", args.sort);
  if (args.limit !== undefined) params.set("limit", String(args.limit));
  if (args.cursor) params.set("cursor", args.cursor);
  const query = pageQueryFrom(new URL(`http://tool.invalid/?${params}`), page);
  return { query, filters };
}
