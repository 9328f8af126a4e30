// The MCP page's pure decisions: what a server's status is, the example arguments of a test call, the JSON the
// admin typed, the roles a tool setting sends, the headers a registration sends. Browser-safe; the page renders.
import type { McpRole } from "./contracts";

/** What a server's last check found, as the page labels it. */
export type ServerHealth = "reachable" | "unreachable" | "unchecked";

export const healthOf = (status: { reachable: boolean | null }): ServerHealth =>
  status.reachable === null ? "unchecked" : status.reachable ? "reachable" : "unreachable";

type Schema = Record<string, unknown>;
const isObject = (v: unknown): v is Schema => typeof v === "object" && v !== null && !Array.isArray(v);

/** How deep example arguments are built (a recursive schema stops here). */
const MAX_DEPTH = 6;

/**
 * Arguments to start a test call from, built from the tool's JSON Schema: every required property (nested ones
 * too) with its default, first example, const or first enum value, else an empty value of its type. Optional
 * properties are left out, so the example is the least the tool accepts.
 */
export function exampleArgs(schema: unknown): Record<string, unknown> {
  const value = exampleOf(schema, 0);
  return isObject(value) ? value : {};
}

function exampleOf(schema: unknown, depth: number): unknown {
  if (!isObject(schema) || depth > MAX_DEPTH) return null;
  if ("default" in schema) return schema.default;
  if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0];
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  for (const key of ["anyOf", "oneOf"] as const) {
    const options = schema[key];
    // The first option that is not null (`{type: "null"}` is how an optional value is often spelled).
    if (Array.isArray(options)) {
      const first = options.find((o) => !(isObject(o) && o.type === "null"));
      if (first !== undefined) return exampleOf(first, depth + 1);
    }
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length) return exampleOf(schema.allOf[0], depth + 1);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  switch (type) {
    case "string":
      return "";
    case "number":
    case "integer":
      return typeof schema.minimum === "number" ? schema.minimum : 0;
    case "boolean":
      return false;
    case "array":
      return typeof schema.minItems === "number" && schema.minItems > 0 && isObject(schema.items)
        ? Array.from({ length: Math.min(schema.minItems, 3) }, () => exampleOf(schema.items, depth + 1))
        : [];
    case "null":
      return null;
    default: {
      if (type !== "object" && !isObject(schema.properties)) return null;
      const properties = isObject(schema.properties) ? schema.properties : {};
      const required = Array.isArray(schema.required) ? schema.required.map(String) : [];
      return Object.fromEntries(
        required
          .filter((name) => name in properties)
          .map((name) => [name, exampleOf(properties[name], depth + 1)]),
      );
    }
  }
}

/** The test call's arguments as typed: a JSON object, or why not (said under the editor). */
export type ParsedArgs = { ok: true; value: Record<string, unknown> } | { ok: false; error: ArgsProblem };
export type ArgsProblem = { kind: "empty" } | { kind: "syntax"; detail: string } | { kind: "notObject" };

export function parseArgs(text: string): ParsedArgs {
  if (!text.trim()) return { ok: false, error: { kind: "empty" } };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return {
      ok: false,
      error: { kind: "syntax", detail: error instanceof Error ? error.message : String(error) },
    };
  }
  return isObject(value) ? { ok: true, value } : { ok: false, error: { kind: "notObject" } };
}

export const ALL_ROLES: readonly McpRole[] = ["member", "admin"];

/** Whether a role may call the tool (null: every role). */
export const roleAllowed = (roles: readonly McpRole[] | null, role: McpRole): boolean =>
  roles === null || roles.includes(role);

/**
 * The roles to save when one role's box changes: null once every role is in (so a role added later is too), and
 * never none (the last role cannot be taken away: switching the tool off is how no one calls it).
 */
export function rolesWith(
  roles: readonly McpRole[] | null,
  role: McpRole,
  allowed: boolean,
): McpRole[] | null {
  const current = roles ?? ALL_ROLES;
  const next = ALL_ROLES.filter((r) => (r === role ? allowed : current.includes(r)));
  if (!next.length) return [...current];
  return next.length === ALL_ROLES.length ? null : next;
}

/** One row of the headers editor. */
export type HeaderRow = { key: string; name: string; value: string };

/**
 * The headers to send: rows with a name (trimmed); a row left wholly blank is ignored. Problems are said per row,
 * by its index: a value without a name, a name without a value, a name given twice (names ignore case).
 */
export function headersOf(rows: readonly HeaderRow[]): {
  headers: Record<string, string>;
  problems: Map<number, "noName" | "noValue" | "duplicate">;
} {
  const headers: Record<string, string> = {};
  const problems = new Map<number, "noName" | "noValue" | "duplicate">();
  const seen = new Set<string>();
  for (const [i, row] of rows.entries()) {
    const name = row.name.trim();
    const problem = !name
      ? "noName"
      : !row.value
        ? "noValue"
        : seen.has(name.toLowerCase())
          ? "duplicate"
          : null;
    if (!name && !row.value) continue;
    if (problem) {
      problems.set(i, problem);
      continue;
    }
    seen.add(name.toLowerCase());
    headers[name] = row.value;
  }
  return { headers, problems };
}

/** The timeout field is in seconds (what people think in); the route takes milliseconds. */
export const secondsToMs = (text: string): number | null => {
  const seconds = Number(text.trim());
  return text.trim() && Number.isFinite(seconds) ? Math.round(seconds * 1000) : null;
};

/** Pretty JSON when the text is JSON (a tool's result usually is), the text itself otherwise. */
export function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
