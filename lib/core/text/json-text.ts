/**
 * Reading JSON that was stored as text: a tool result is a string that usually holds JSON, sometimes JSON inside
 * a JSON string (a tool that returned `JSON.stringify` of a string), sometimes cut short by a size limit. The
 * viewers show the value, never its escaped text.
 */

/** How deep strings inside strings are decoded (a result encoded twice or three times is still read). */
const MAX_DEPTH = 4;

/** Markers the audit trail and the tool loop append when they cut a long text (lib/governance, lib/agent). */
const CUT_MARKER = /\n?…\[(?:truncated: )?\d+ more characters\]$/;

export type DecodedText =
  | { kind: "json"; value: unknown }
  /** Not JSON (prose, or JSON cut short): shown as text; `truncated` when a size limit cut it. */
  | { kind: "text"; text: string; truncated: boolean };

const looksLikeJson = (text: string) => /^\s*[[{"]/.test(text) || /^\s*(true|false|null|-?\d)/.test(text);

function parse(text: string): { ok: true; value: unknown } | { ok: false } {
  if (!looksLikeJson(text)) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/**
 * Strings inside a value that are themselves JSON objects or arrays become values, to `depth` levels; a plain
 * string that merely looks like a number stays a string.
 */
export function decodeNested(value: unknown, depth = MAX_DEPTH): unknown {
  if (depth <= 0) return value;
  if (typeof value === "string") {
    if (!/^\s*[[{]/.test(value)) return value;
    const parsed = parse(value);
    return parsed.ok ? decodeNested(parsed.value, depth - 1) : value;
  }
  if (Array.isArray(value)) return value.map((v) => decodeNested(v, depth));
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, decodeNested(v, depth)]));
  return value;
}

/** A stored text as a value when it is JSON (decoded through every level of encoding), else as text. */
export function decodeJsonText(text: string): DecodedText {
  let value: unknown = text;
  for (let i = 0; i < MAX_DEPTH && typeof value === "string"; i++) {
    const parsed = parse(value);
    if (!parsed.ok) break;
    value = parsed.value;
  }
  if (typeof value !== "string") return { kind: "json", value: decodeNested(value) };
  const truncated = CUT_MARKER.test(value);
  return { kind: "text", text: value, truncated };
}

/** The `[masked]` and `[masked:kind]` markers lib/core/text/mask.ts writes in place of a secret. */
export const MASK_MARKER = /\[masked(?::[a-z_]+)?\]/g;

export const hasMaskMarker = (text: string) => text.includes("[masked");
