// The scorer builder's drafts: every field as typed (text), turned into the contract's scorers when a run or a
// dataset is saved, with the first problem of each named. Pure and browser-safe.
import type { z } from "zod";
import { type ScorerInput, scorerInput, type targetInput } from "./contracts";

export const SCORER_TYPES = [
  "contains",
  "exact",
  "regex",
  "json_schema",
  "tool_called",
  "numeric",
  "latency",
  "cost",
  "llm_judge",
] as const;
export type ScorerType = (typeof SCORER_TYPES)[number];

/** A scorer as the form holds it: text per field, and the one checkbox (case sensitivity). */
export type ScorerDraft = { type: ScorerType; fields: Record<string, string>; caseSensitive: boolean };

/** The fields each type shows, in order; `json` fields hold JSON text, `number` fields numbers. */
export const SCORER_FIELDS: Record<
  ScorerType,
  { name: string; kind: "text" | "json" | "number" | "model" }[]
> = {
  contains: [{ name: "value", kind: "text" }],
  exact: [{ name: "value", kind: "text" }],
  regex: [
    { name: "pattern", kind: "text" },
    { name: "flags", kind: "text" },
  ],
  json_schema: [{ name: "schema", kind: "json" }],
  tool_called: [
    { name: "name", kind: "text" },
    { name: "args", kind: "json" },
  ],
  numeric: [
    { name: "value", kind: "number" },
    { name: "tolerance", kind: "number" },
  ],
  latency: [{ name: "maxMs", kind: "number" }],
  cost: [{ name: "maxUsd", kind: "text" }],
  llm_judge: [
    { name: "rubric", kind: "text" },
    { name: "model", kind: "model" },
    { name: "threshold", kind: "number" },
  ],
};

export const newDraft = (type: ScorerType = "contains"): ScorerDraft => ({
  type,
  fields: {},
  caseSensitive: false,
});

export type DraftResult = { ok: true; scorer: ScorerInput } | { ok: false; field: string; error: string };

/**
 * One draft as a scorer of the contract: blank fields are left out (so `value` falls back to the item's
 * expected output), JSON and number fields are parsed, and the result is checked by the route's own schema.
 */
export function draftToScorer(draft: ScorerDraft): DraftResult {
  const out: Record<string, unknown> = { type: draft.type };
  for (const { name, kind } of SCORER_FIELDS[draft.type]) {
    const raw = (draft.fields[name] ?? "").trim();
    if (!raw) continue;
    if (kind === "json") {
      try {
        out[name] = JSON.parse(raw);
      } catch {
        return { ok: false, field: name, error: "not valid JSON" };
      }
    } else if (kind === "number") {
      const n = Number(raw);
      if (!Number.isFinite(n)) return { ok: false, field: name, error: "not a number" };
      out[name] = n;
    } else out[name] = draft.fields[name];
  }
  if ((draft.type === "contains" || draft.type === "exact") && draft.caseSensitive) out.caseSensitive = true;
  const parsed = scorerInput.safeParse(out);
  if (parsed.success) return { ok: true, scorer: parsed.data };
  const issue = (parsed.error as z.ZodError).issues[0];
  return {
    ok: false,
    field: String(issue?.path[0] ?? "type"),
    error: issue?.message ?? "invalid scorer",
  };
}

/** Every draft as a scorer, or the index, field and message of each one that is not. */
export function draftsToScorers(
  drafts: ScorerDraft[],
):
  | { ok: true; scorers: ScorerInput[] }
  | { ok: false; errors: { index: number; field: string; error: string }[] } {
  const scorers: ScorerInput[] = [];
  const errors: { index: number; field: string; error: string }[] = [];
  drafts.forEach((d, index) => {
    const r = draftToScorer(d);
    if (r.ok) scorers.push(r.scorer);
    else errors.push({ index, field: r.field, error: r.error });
  });
  return errors.length ? { ok: false, errors } : { ok: true, scorers };
}

/** A scorer in one line, for lists: `contains "Paris"`, `latency ≤ 2000 ms`, `llm_judge (judge-alias)`. */
export function scorerSummary(s: { type: string } & Record<string, unknown>): string {
  const q = (v: unknown) => JSON.stringify(v);
  switch (s.type) {
    case "contains":
    case "exact":
      return s.value === undefined ? `${s.type} (expected)` : `${s.type} ${q(s.value)}`;
    case "regex":
      return `regex /${String(s.pattern)}/${String(s.flags ?? "")}`;
    case "json_schema":
      return "json_schema";
    case "tool_called":
      return `tool_called ${String(s.name)}`;
    case "numeric":
      return `numeric ${s.value === undefined ? "(expected)" : String(s.value)} ± ${String(s.tolerance ?? 0)}`;
    case "latency":
      return `latency ≤ ${String(s.maxMs)} ms`;
    case "cost":
      return `cost ≤ $${String(s.maxUsd)}`;
    case "llm_judge":
      return `llm_judge (${String(s.model)}) ≥ ${String(s.threshold ?? 0.5)}`;
    default:
      return s.type;
  }
}

/** A target as the form holds it: an alias, and optionally a stored prompt at a version or a label. */
export type TargetDraft = { model: string; prompt: string; pick: "latest" | "version" | "label"; at: string };

/** The target of a draft, or the message that says why it is none. */
export function draftToTarget(
  d: TargetDraft,
): { ok: true; target: z.input<typeof targetInput> } | { ok: false; error: string } {
  if (!d.model) return { ok: false, error: "choose a model" };
  const name = d.prompt.trim();
  if (!name) return { ok: true, target: { model: d.model } };
  if (d.pick === "latest") return { ok: true, target: { model: d.model, prompt: { name } } };
  const at = d.at.trim();
  if (d.pick === "version") {
    const version = Number(at);
    if (!Number.isInteger(version) || version < 1)
      return { ok: false, error: "a version is a whole number from 1" };
    return { ok: true, target: { model: d.model, prompt: { name, version } } };
  }
  if (!at) return { ok: false, error: "enter a label" };
  return { ok: true, target: { model: d.model, prompt: { name, label: at } } };
}
