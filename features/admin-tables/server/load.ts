import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { Ajv } from "ajv";
import { describeSchemaErrors } from "@/lib/core/schema/json-schema";
import pageSchemaJson from "@/schemas/page.schema.json";
import type { PageSchema } from "../contracts";

export const SCHEMAS_DIR = path.join(process.cwd(), "schemas");
/** The meta schemas in schemas/ that are not pages. */
const NOT_PAGES = new Set(["page.schema.json", "gateway.schema.json"]);

/** A page file the app cannot start with; the message names the file and the field. */
export class PageSchemaError extends Error {
  override name = "PageSchemaError";
}

const ajv = new Ajv({ allErrors: true, strict: false });
const validatePage = ajv.compile<PageSchema>(pageSchemaJson);

/** Validates one parsed page file: the JSON Schema, then the references between its parts. */
export function parsePageSchema(raw: unknown, file: string, providers: readonly string[]): PageSchema {
  if (!validatePage(raw))
    throw new PageSchemaError(`${file}: ${describeSchemaErrors(validatePage.errors ?? [])}`);
  const page = raw;
  if (!providers.includes(page.provider)) {
    throw new PageSchemaError(
      `${file}: provider is "${page.provider}", expected one of: ${providers.join(", ")}`,
    );
  }
  const columns = new Set(page.columns.map((c) => c.field));
  if (!columns.has(page.defaultSort.field)) {
    throw new PageSchemaError(
      `${file}: defaultSort.field is "${page.defaultSort.field}", expected one of the columns' fields`,
    );
  }
  checkColumnsAndBadges(page, file);
  checkAssistant(page, file);
  const expected = `${page.key}.schema.json`;
  if (path.basename(file) !== expected)
    throw new PageSchemaError(`${file}: key is "${page.key}", so the file must be named ${expected}`);
  return page;
}

/**
 * A table must show something before the picker is touched (the sort column at least), a column appears once,
 * and every `badges` field is a badge cell of the table or the detail, so a label map never silently misses.
 */
function checkColumnsAndBadges(page: PageSchema, file: string) {
  const seen = new Set<string>();
  for (const column of page.columns) {
    if (seen.has(column.field)) throw new PageSchemaError(`${file}: columns has "${column.field}" twice`);
    seen.add(column.field);
  }
  const sortColumn = page.columns.find((c) => c.field === page.defaultSort.field);
  if (sortColumn?.defaultHidden)
    throw new PageSchemaError(
      `${file}: columns "${sortColumn.field}" is the default sort, so it cannot be defaultHidden`,
    );
  const badgeFields = new Set([
    ...page.columns.filter((c) => c.cell === "badge").map((c) => c.field),
    ...(page.detail?.sections ?? []).flatMap((s) =>
      s.fields.filter((f) => f.cell === "badge").map((f) => f.field),
    ),
  ]);
  for (const field of Object.keys(page.badges ?? {}))
    if (!badgeFields.has(field))
      throw new PageSchemaError(
        `${file}: badges.${field} names no badge column or detail field (badge fields: ${[...badgeFields].join(", ") || "none"})`,
      );
}

/** "Ask the assistant" lives in the detail view, and its id comes from a field the page's rows have. */
function checkAssistant(page: PageSchema, file: string) {
  if (!page.assistant) return;
  if (!page.detail) throw new PageSchemaError(`${file}: assistant needs a detail view to live in`);
  const fields = new Set([
    page.idField,
    ...page.columns.map((c) => c.field),
    ...page.detail.sections.flatMap((s) => s.fields.map((f) => f.field)),
  ]);
  if (!fields.has(page.assistant.idField))
    throw new PageSchemaError(
      `${file}: assistant.idField is "${page.assistant.idField}", expected the id field or one of the columns' or detail's fields`,
    );
}

/** Every page schema in schemas/, validated; the first bad file stops the load with its name and field. */
export function loadPageSchemas(providers: readonly string[], dir = SCHEMAS_DIR): Map<string, PageSchema> {
  const pages = new Map<string, PageSchema>();
  // The page files are read at run time from schemas/; the bundler must not trace the whole project for them.
  for (const name of readdirSync(/*turbopackIgnore: true*/ dir).sort()) {
    if (!name.endsWith(".schema.json") || NOT_PAGES.has(name)) continue;
    const file = path.join(/*turbopackIgnore: true*/ dir, name);
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(/*turbopackIgnore: true*/ file, "utf8"));
    } catch (error) {
      throw new PageSchemaError(`${file}: not valid JSON (${(error as Error).message})`);
    }
    const page = parsePageSchema(raw, file, providers);
    pages.set(page.key, page);
  }
  return pages;
}
