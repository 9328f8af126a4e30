import { AppError } from "@/lib/errors";
import type { PageQuery, PageSchema, Row } from "./types";

/** Reads a page query from the URL: sort=field:dir, segment=, cursor=, limit=, f.<field>=, f.<field>.from/to=. */
export function pageQueryFrom(url: URL, page: PageSchema): PageQuery {
  const params = url.searchParams;
  const [field, direction] = (
    params.get("sort") ?? `${page.defaultSort.field}:${page.defaultSort.direction}`
  ).split(":");
  if (direction !== "asc" && direction !== "desc") {
    throw new AppError("validation_failed", "sort must look like field:asc or field:desc", {
      fields: { sort: ["use field:asc or field:desc"] },
    });
  }
  const sortable = page.columns.some(
    (c) => c.field === field && (c.sortable || field === page.defaultSort.field),
  );
  if (!sortable)
    throw new AppError("validation_failed", `cannot sort by "${field}"`, {
      fields: { sort: ["not a sortable column"] },
    });
  const limit = Number(params.get("limit") ?? page.pageSize);
  if (!Number.isInteger(limit) || limit < 1 || limit > 500) {
    throw new AppError("validation_failed", "limit must be a whole number from 1 to 500", {
      fields: { limit: ["1 to 500"] },
    });
  }
  const filters: Record<string, string> = {};
  for (const [key, value] of params)
    if (key.startsWith("f.") && value.trim()) filters[key.slice(2)] = value.trim();
  const segment = params.get("segment") || null;
  if (segment && page.segments && !page.segments.values.some((v) => v.value === segment)) {
    throw new AppError("validation_failed", `unknown segment "${segment}"`, {
      fields: { segment: ["not a segment of this page"] },
    });
  }
  return { filters, segment, sort: { field: field!, direction }, cursor: params.get("cursor"), limit };
}

const csvCell = (value: unknown): string => {
  const text =
    value === null || value === undefined
      ? ""
      : typeof value === "object"
        ? JSON.stringify(value)
        : String(value);
  // Quote everything that needs it; a leading =,+,-,@ is prefixed so spreadsheets do not run it as a formula.
  const safe = /^[=+\-@]/.test(text) ? `'${text}` : text;
  return /[",\n\r]/.test(safe) || safe !== text ? `"${safe.replace(/"/g, '""')}"` : safe;
};

/** Streams rows as CSV with the page's columns (and the tenant for the super admin). */
export function csvStream(
  page: PageSchema,
  rows: AsyncIterable<Row>,
  superAdmin: boolean,
  locale: "en" | "zh",
): ReadableStream<Uint8Array> {
  const columns = page.columns.filter((c) => superAdmin || !c.superAdminOnly);
  const encoder = new TextEncoder();
  return new ReadableStream({
    async start(controller) {
      controller.enqueue(encoder.encode(`${columns.map((c) => csvCell(c.label[locale])).join(",")}\n`));
      for await (const row of rows)
        controller.enqueue(encoder.encode(`${columns.map((c) => csvCell(row[c.field])).join(",")}\n`));
      controller.close();
    },
  });
}
