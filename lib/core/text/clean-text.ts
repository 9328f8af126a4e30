import { countCleaned } from "../errors/failures";

/**
 * PostgreSQL refuses a NUL character in `text` and `jsonb`, and a lone UTF-16 surrogate in `jsonb` (postgres-js
 * turns one into U+FFFD in `text`, PGlite refuses it): one such character in a caller's message would fail the
 * whole insert. Every governance write passes its rows through `cleanRow`/`cleanRows` first, which replace them
 * with U+FFFD (the Unicode replacement character) and count the values they changed (on /api/health).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is exactly what this must find.
const BAD = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is exactly what this must find.
const BAD_TEST = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The text with every NUL and lone surrogate replaced by U+FFFD (the same string when there is none). */
export function cleanText(text: string): string {
  return BAD_TEST.test(text) ? text.replace(BAD, "\ufffd") : text;
}

/**
 * The value with every string in it cleaned, object keys included, through arrays and plain objects (jsonb
 * payloads); other objects (dates, buffers) are kept as they are. Returns the same reference when nothing needed
 * cleaning, so a clean row costs no copy.
 */
export function cleanDeep<T>(value: T): T {
  return clean(value, 0) as T;
}

const MAX_DEPTH = 64;

function clean(value: unknown, depth: number): unknown {
  if (typeof value === "string") return cleanText(value);
  if (value === null || typeof value !== "object" || depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const item = clean(value[i], depth + 1);
      if (item !== value[i]) {
        out ??= value.slice();
        out[i] = item;
      }
    }
    return out ?? value;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  let out: Record<string, unknown> | null = null;
  for (const [key, item] of Object.entries(value)) {
    const k = cleanText(key);
    const v = clean(item, depth + 1);
    if (k !== key || v !== item) {
      if (!out) {
        out = {};
        // Keep the entries before this one, in order.
        for (const [k0, v0] of Object.entries(value)) {
          if (k0 === key) break;
          out[k0] = v0;
        }
      }
    }
    if (out) out[k] = v;
  }
  return out ?? value;
}

/** One row (or any value) ready to write: cleaned, and counted when it needed cleaning. */
export function cleanRow<T>(row: T): T {
  const cleaned = cleanDeep(row);
  if (cleaned !== row) countCleaned();
  return cleaned;
}

/** Rows ready to write, each cleaned and counted. */
export function cleanRows<T>(rows: T[]): T[] {
  let out: T[] | null = null;
  for (let i = 0; i < rows.length; i++) {
    const row = cleanRow(rows[i]!);
    if (row !== rows[i]) {
      out ??= rows.slice();
      out[i] = row;
    }
  }
  return out ?? rows;
}
