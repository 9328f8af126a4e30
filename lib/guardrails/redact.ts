import type { Pseudonyms } from "./pseudonymise";
import type { GuardrailCheckType } from "./types";

/** A span a redact rule found: what (for the placeholder), where, and whether the rule keeps it reversible. */
export type RedactionSpan = {
  check: GuardrailCheckType;
  entity: string;
  start: number;
  end: number;
  reversible: boolean;
};

/** The placeholder label of a finding: `SECRET:aws_access_key` for a secret, the entity upper-cased otherwise. */
export function placeholderLabel(check: GuardrailCheckType, entity: string): string {
  if (check === "secrets") return `SECRET:${entity.replace(/[^A-Za-z0-9_]/g, "_")}`;
  return entity.toUpperCase().replace(/[^A-Z0-9]/g, "_");
}

/**
 * `text` with every span replaced by its typed placeholder (`[EMAIL]`), or by a numbered one (`[EMAIL_1]`) when its
 * rule is reversible and the call has pseudonyms. Overlapping spans, from one rule or several, merge into one
 * replaced region named after the longest of them.
 */
export function redactText(text: string, spans: readonly RedactionSpan[], pseudonyms?: Pseudonyms): string {
  if (spans.length === 0) return text;
  const sorted = spans
    .map((span) => ({ ...span, start: snapStart(text, span.start), end: snapEnd(text, span.end) }))
    .filter((span) => span.end > span.start)
    .sort((a, b) => a.start - b.start || b.end - a.end);
  let output = "";
  let cursor = 0;
  let index = 0;
  while (index < sorted.length) {
    const first = sorted[index]!;
    let longest = first;
    let regionEnd = first.end;
    index++;
    while (index < sorted.length && sorted[index]!.start < regionEnd) {
      const next = sorted[index]!;
      if (next.end - next.start > longest.end - longest.start) longest = next;
      regionEnd = Math.max(regionEnd, next.end);
      index++;
    }
    const label = placeholderLabel(longest.check, longest.entity);
    const original = text.slice(first.start, regionEnd);
    const placeholder =
      longest.reversible && pseudonyms ? pseudonyms.placeholderFor(label, original) : `[${label}]`;
    output += text.slice(cursor, first.start) + placeholder;
    cursor = regionEnd;
  }
  return output + text.slice(cursor);
}

// Offsets are UTF-16 code units; a span edge inside a surrogate pair widens so no half emoji is left behind.
function snapStart(text: string, offset: number): number {
  const start = Math.max(0, Math.min(offset, text.length));
  return start > 0 && isLowSurrogate(text.charCodeAt(start)) && isHighSurrogate(text.charCodeAt(start - 1))
    ? start - 1
    : start;
}

function snapEnd(text: string, offset: number): number {
  const end = Math.max(0, Math.min(offset, text.length));
  return end > 0 && end < text.length && isHighSurrogate(text.charCodeAt(end - 1)) ? end + 1 : end;
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;
