import { z } from "zod";
import { AppError } from "@/lib/core/errors/app-error";
import { log } from "@/lib/core/process/log";
import { isUuid } from "@/lib/core/schema/uuid";
import { csvField } from "@/lib/core/text/csv";
import type { PageQuery, PageSchema, ProviderContext, Row } from "../contracts";
import { FILTER_SUFFIXES, isNumberSuffix, parseDecimal, parseFilterName } from "../filter-operators";

/**
 * Reads a page query from the URL: sort=field:dir, segment=, cursor=, limit=, f.<field>=, f.<field>.from/to=.
 * Everything that can be checked without the provider is checked here, so a bad query fails before any query
 * runs (and before an export's headers are sent).
 */
export function pageQueryFrom(url: URL, page: PageSchema): PageQuery {
  const params = url.searchParams;
  for (const [key, value] of params)
    if (value.includes("\u0000"))
      throw new AppError("validation_failed", `${key} must not contain a NUL character`, {
        fields: { [key]: ["must not contain a NUL character"] },
      });
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
  // No prototype: f.__proto__ is a filter name like any other (and refused as unknown).
  const filters: Record<string, string> = Object.create(null);
  for (const [key, value] of params)
    if (key.startsWith("f.") && value.trim()) filters[key.slice(2)] = value.trim();
  checkOperators(filters);
  checkTimeRanges(filters);
  const segment = params.get("segment") || null;
  if (segment && page.segments && !page.segments.values.some((v) => v.value === segment)) {
    throw new AppError("validation_failed", `unknown segment "${segment}"`, {
      fields: { segment: ["not a segment of this page"] },
    });
  }
  const cursor = params.get("cursor") || null;
  if (cursor) decodeCursor(cursor);
  return { filters, segment, sort: { field: field!, direction }, cursor, limit };
}

/** The filter fields a viewer may ask suggestions for: the page's text filters marked `suggest`, and the
 * super admin's tenant name. */
export function suggestFields(page: PageSchema, ctx: ProviderContext): string[] {
  const fields = (page.filters ?? []).filter((f) => f.type === "text" && f.suggest).map((f) => f.field);
  if (ctx.superAdmin && !ctx.tenantId) fields.push("tenant");
  return fields;
}

export const suggestFieldUnknown = (field: string) =>
  new AppError("validation_failed", `no suggestions for "${field}"`, {
    fields: { field: ["not a filter of this page that offers suggestions"] },
  });

const SUGGEST_LIMIT = 10;

/** …/suggest?field=<filter>&q=<text>[&limit=]: a 422 for a field without suggestions or an overlong q. */
export function suggestQueryFrom(
  url: URL,
  page: PageSchema,
  ctx: ProviderContext,
): { field: string; q: string; limit: number } {
  const params = url.searchParams;
  const field = params.get("field") ?? "";
  if (!field)
    throw new AppError("validation_failed", "field is required", { fields: { field: ["required"] } });
  if (!suggestFields(page, ctx).includes(field)) throw suggestFieldUnknown(field);
  const q = (params.get("q") ?? "").trim();
  if (q.length > 200 || q.includes("\u0000"))
    throw new AppError("validation_failed", "q must be at most 200 characters, without NUL", {
      fields: { q: ["at most 200 characters, without NUL"] },
    });
  const limit = Number(params.get("limit") ?? SUGGEST_LIMIT);
  if (!Number.isInteger(limit) || limit < 1 || limit > 50)
    throw new AppError("validation_failed", "limit must be a whole number from 1 to 50", {
      fields: { limit: ["1 to 50"] },
    });
  return { field, q, limit };
}

export const unknownFilter = (key: string) =>
  new AppError("validation_failed", `unknown filter "${key}"`, {
    fields: { [`f.${key}`]: ["not a filter of this page"] },
  });

/** A filter value that cannot mean anything (e.g. an id that is not a UUID), named in the answer. */
export const badFilterValue = (key: string, why: string) =>
  new AppError("validation_failed", `f.${key} ${why}`, { fields: { [`f.${key}`]: [why] } });

/** The value of an id filter (f.turnId=…): a UUID, or a 422 naming the filter. */
export function uuidFilter(key: string, value: string): string {
  const id = value.trim();
  if (!isUuid(id)) throw badFilterValue(key, "must be an id (a UUID)");
  return id;
}

/** One end of a time range: a calendar day (the whole day, UTC) or an instant with its offset. */
export type TimeBound = { kind: "date" | "datetime"; text: string; ms: number };

const isoDate = z.iso.date();
const isoDateTime = z.iso.datetime({ offset: true });

/**
 * f.<field>.from / .to: a real calendar date (2026-02-31 is refused, not rolled over to March) or an ISO
 * datetime with a zone (Z or ±hh:mm), in years 1 to 9999 (PostgreSQL has no year 0).
 */
export function parseTimeBound(key: string, value: string): TimeBound {
  const kind = isoDate.safeParse(value).success
    ? "date"
    : isoDateTime.safeParse(value).success
      ? "datetime"
      : null;
  const text = kind === "date" ? `${value}T00:00:00Z` : value;
  const ms = kind ? Date.parse(text) : Number.NaN;
  if (!kind || Number.isNaN(ms) || value.startsWith("0000"))
    throw new AppError(
      "validation_failed",
      `f.${key} must be a real date like 2026-11-01 or a time like 2026-11-01T09:30:00Z`,
      { fields: { [`f.${key}`]: ["must be a date (YYYY-MM-DD) or an ISO time with a zone"] } },
    );
  return { kind, text, ms };
}

/** f.<field>.gt / .lt / .gte / .lte: a plain decimal number (filter-operators parseDecimal), else a 422 naming it. */
export function numberFilter(key: string, value: string): string {
  const n = parseDecimal(value);
  if (n === null) throw badFilterValue(key, "must be a number, such as 250 or 0.05");
  return n;
}

/**
 * Every filter name is a field or a field with a known operator (filter-operators.ts); numbers parse, and a
 * between does not end below its start. Whether the page offers the operator for that field is the provider's.
 */
function checkOperators(filters: Record<string, string>) {
  for (const [key, value] of Object.entries(filters)) {
    const { field, suffix, unknown } = parseFilterName(key);
    if (unknown !== undefined)
      throw new AppError("validation_failed", `f.${key}: unknown operator "${unknown}"`, {
        fields: { [`f.${key}`]: [`operators: ${FILTER_SUFFIXES.join(", ")}`] },
      });
    if (!isNumberSuffix(suffix)) continue;
    const n = Number(numberFilter(key, value));
    const hi = suffix === "gte" ? filters[`${field}.lte`] : undefined;
    if (hi !== undefined && n > Number(numberFilter(`${field}.lte`, hi)))
      throw badFilterValue(key, `must not be above f.${field}.lte`);
  }
}

/** Every f.<field>.from/.to is a real date or time, and a range does not end before it starts. */
function checkTimeRanges(filters: Record<string, string>) {
  for (const [key, value] of Object.entries(filters)) {
    const match = key.match(/^(.+)\.from$/);
    const bound = key.match(/^(.+)\.(from|to)$/) ? parseTimeBound(key, value) : null;
    if (!match || !bound) continue;
    const toKey = `${match[1]}.to`;
    const to = filters[toKey] === undefined ? null : parseTimeBound(toKey, filters[toKey]);
    // A day as the end covers the whole day.
    const end = to && (to.kind === "date" ? to.ms + 86_400_000 : to.ms + 1);
    if (end !== null && bound.ms >= end)
      throw new AppError("validation_failed", `f.${key} is after f.${toKey}`, {
        fields: { [`f.${key}`]: [`must not be after f.${toKey}`] },
      });
  }
}

export const invalidCursor = () =>
  new AppError("bad_request", "invalid cursor: start again from the first page", {
    fields: { cursor: ["not a cursor this page gave out"] },
  });

export function encodeCursor(parts: [string, string]): string {
  return Buffer.from(JSON.stringify(parts)).toString("base64url");
}

/** A cursor from encodeCursor, or 400 "invalid cursor" (random bytes, other JSON, other types, NUL bytes). */
export function decodeCursor(cursor: string): [string, string] {
  try {
    const parts = JSON.parse(Buffer.from(cursor, "base64url").toString()) as unknown;
    if (
      Array.isArray(parts) &&
      parts.length === 2 &&
      parts.every((p) => typeof p === "string" && p.length <= 1_000 && !p.includes("\u0000"))
    )
      return parts as [string, string];
  } catch {}
  throw invalidCursor();
}

const CURSOR_VALUE: Record<"timestamptz" | "numeric" | "integer" | "text", (v: string) => boolean> = {
  timestamptz: (v) => isoDateTime.safeParse(v).success && !v.startsWith("0000"),
  numeric: (v) => /^-?\d{1,30}(\.\d{1,30})?$/.test(v),
  integer: (v) => /^-?\d{1,10}$/.test(v) && Math.abs(Number(v)) <= 2_147_483_647,
  text: () => true,
};

/** Checks a decoded cursor's parts against the SQL types they will be cast to: 400 rather than a SQL error. */
export function checkCursor(value: string, type: keyof typeof CURSOR_VALUE, id: string): void {
  if (!CURSOR_VALUE[type](value) || !isUuid(id)) throw invalidCursor();
}

/** An offset cursor (in-memory providers): ["offset", "<n>"] with a whole n, or 400. */
export function cursorOffset(cursor: string | null): number {
  if (!cursor) return 0;
  const [kind, n] = decodeCursor(cursor);
  if (kind !== "offset" || !/^\d{1,9}$/.test(n)) throw invalidCursor();
  return Number(n);
}

const csvCell = (value: unknown): string => {
  const text =
    value === null || value === undefined
      ? ""
      : typeof value === "object"
        ? JSON.stringify(value)
        : String(value);
  return csvField(text);
};

/** The row that ends an export which failed after its headers were sent, so a cut file never looks whole. */
export const exportFailedRow = (requestId: string) =>
  `${csvCell(`# EXPORT INCOMPLETE: the export failed here; the rows above are not all the rows (request id ${requestId})`)}\n`;

/**
 * Streams rows as CSV with the page's columns (and the tenant for the super admin). The first row is read
 * before the stream is returned, so a bad filter or cursor is still an HTTP error with the JSON body; a failure
 * after that ends the file with a marker row instead of a reset connection. Rows are read as the client reads.
 */
export async function csvStream(
  page: PageSchema,
  rows: AsyncIterable<Row>,
  options: { superAdmin: boolean; locale: "en" | "zh"; requestId: string },
): Promise<ReadableStream<Uint8Array>> {
  const columns = page.columns.filter((c) => options.superAdmin || !c.superAdminOnly);
  const encoder = new TextEncoder();
  const line = (cells: unknown[]) => encoder.encode(`${cells.map(csvCell).join(",")}\n`);
  const iterator = rows[Symbol.asyncIterator]();
  let next: IteratorResult<Row> | null = await iterator.next();
  return new ReadableStream({
    start(controller) {
      controller.enqueue(line(columns.map((c) => c.label[options.locale])));
    },
    async pull(controller) {
      try {
        next ??= await iterator.next();
        if (next.done) return controller.close();
        const row = next.value;
        next = null;
        controller.enqueue(line(columns.map((c) => row[c.field])));
      } catch (err) {
        log.error({ requestId: options.requestId, err }, "export failed after it started");
        controller.enqueue(encoder.encode(exportFailedRow(options.requestId)));
        controller.close();
      }
    },
    async cancel() {
      await iterator.return?.();
    },
  });
}
