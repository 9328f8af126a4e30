import "server-only";
import type { ContextChip, ContextItemRef } from "@/features/drawer/contracts";
import type { TurnExtras } from "@/lib/agent/service";
import { CONTEXT_PREFACE, contextBlock } from "@/lib/core/text/context-block";
import { maskSecrets, maskText } from "@/lib/core/text/mask";
import { CONTEXT_SOURCES, type ContextInput, type ContextSummary } from "./context-sources";

/** A summary's most, in characters: a context item is a compact reference, not a dump of the object. */
export const MAX_SUMMARY_CHARS = 2_000;
/** One field's most; a longer value (a template, a message) is cut with a marker. */
const MAX_FIELD_CHARS = 600;
const CUT = "…[cut]";

/**
 * Loads each context item the user attached, on the server, with the user's own role and active tenant: an object
 * they could not open on its page is refused (403 for a page their role cannot open, 404 for another tenant's or a
 * missing object) before anything is sent. Each item becomes one delimited, escaped block for the model (masked:
 * the model has no use for a key), a chip on the message, and the audit's `context` / `contextText`.
 */
export async function resolveContextItems(input: ContextInput): Promise<TurnExtras> {
  const refs = distinct(input.request.context ?? []);
  if (!refs.length) return {};
  const chips: ContextChip[] = [];
  const blocks: string[] = [];
  // One at a time: the first refusal ends it, and nothing of the others has been read for nothing.
  for (const ref of refs) {
    const summary = await CONTEXT_SOURCES[ref.type](input, ref.id);
    const label = maskText(summary.label);
    chips.push({ type: ref.type, id: ref.id, label });
    blocks.push(contextBlock({ kind: ref.type, id: ref.id, label }, renderSummary(summary)));
  }
  const names = chips.map((c) => c.label).join(", ");
  return {
    contextBlocks: [CONTEXT_PREFACE, ...blocks],
    data: { context: chips },
    notices: [
      {
        code: "context",
        message: `Added ${chips.length} context item${chips.length === 1 ? "" : "s"}: ${names}`,
      },
    ],
    audit: { context: chips, contextText: blocks },
  };
}

/** The same object asked for twice is one item. */
function distinct(refs: ContextItemRef[]): ContextItemRef[] {
  const seen = new Set<string>();
  return refs.filter((r) => {
    const key = `${r.type}\n${r.id}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * A summary as the block's text: one `field: value` line per field (objects as compact JSON, multi-line text
 * indented under its field), masked (credential-named keys and secret shapes), every field and the whole cut.
 */
export function renderSummary(summary: ContextSummary): string {
  const fields = maskSecrets(summary.fields);
  const lines: string[] = [];
  for (const [key, value] of Object.entries(fields)) {
    if (value === null || value === undefined || value === "") continue;
    const text = clipText(typeof value === "string" ? value : JSON.stringify(value), MAX_FIELD_CHARS);
    lines.push(text.includes("\n") ? `${key}:\n${indent(text)}` : `${key}: ${text}`);
  }
  return clipText(lines.join("\n"), MAX_SUMMARY_CHARS);
}

const indent = (text: string) =>
  text
    .split("\n")
    .map((l) => `  ${l}`)
    .join("\n");

export const clipText = (text: string, max: number) =>
  text.length > max ? `${text.slice(0, max - CUT.length)}${CUT}` : text;
