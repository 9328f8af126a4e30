// The run page's comparison, from a RunView: one row per dataset item with every target's result side by side,
// whether the targets disagree, which words of an output differ from the first target's, and the chart's points.
// Pure and browser-safe.
import { diffLines } from "@/lib/core/text/line-diff";
import type { RunItemView, RunStatus, RunView, TargetSummary } from "./contracts";

export type ComparedRow = {
  itemId: string;
  input: unknown;
  expected: unknown;
  /** By target index; null where the run has no result row for that target (yet). */
  cells: (RunItemView | null)[];
  /** The finished targets gave different verdicts (one passed, another failed), or one failed with an error. */
  disagree: boolean;
};

const FINISHED = new Set(["done", "failed"]);

/** The verdict a cell counts as: passed, failed (a failed call is a failure) or none yet. */
function verdict(cell: RunItemView | null): "pass" | "fail" | null {
  if (!cell || !FINISHED.has(cell.status)) return null;
  if (cell.status === "failed" || cell.error) return "fail";
  return cell.passed === null ? null : cell.passed ? "pass" : "fail";
}

/** Whether finished targets gave different verdicts: at least two verdicts, not all the same. */
export function disagrees(cells: (RunItemView | null)[]): boolean {
  const verdicts = cells.map(verdict).filter((v) => v !== null);
  return verdicts.length >= 2 && new Set(verdicts).size > 1;
}

/** The run's items grouped per dataset item, in the order the run lists them, each with one cell per target. */
export function compareItems(view: Pick<RunView, "items" | "targets">): ComparedRow[] {
  const width = view.targets.length;
  const rows = new Map<string, ComparedRow>();
  for (const item of view.items) {
    let row = rows.get(item.itemId);
    if (!row) {
      row = {
        itemId: item.itemId,
        input: item.input,
        expected: item.expected,
        cells: Array.from({ length: width }, () => null),
        disagree: false,
      };
      rows.set(item.itemId, row);
    }
    if (item.targetIndex >= 0 && item.targetIndex < width) row.cells[item.targetIndex] = item;
  }
  const all = [...rows.values()];
  for (const row of all) row.disagree = disagrees(row.cells);
  return all;
}

export type Word = { text: string; changed: boolean };

/** Words and the spaces between them, kept, so the pieces join back into the text. */
const words = (text: string) => text.split(/(\s+)/).filter((w) => w !== "");

/**
 * `text` in pieces, those not in `reference` marked changed (a word diff): how the run page highlights where a
 * target's output differs from the first target's. Without a reference nothing is marked.
 */
export function markDifferences(text: string, reference: string | null): Word[] {
  if (reference === null || reference === text) return [{ text, changed: false }];
  const out: Word[] = [];
  for (const op of diffLines(words(reference), words(text))) {
    if (op.kind === "removed") continue;
    const last = out[out.length - 1];
    // Spaces join whatever run they follow, so "5 apples" is one marked piece.
    if (last && op.text.trim() === "") {
      last.text += op.text;
      continue;
    }
    const changed = op.kind === "added";
    if (last && last.changed === changed) last.text += op.text;
    else out.push({ text: op.text, changed });
  }
  return out;
}

/** A target as people name it: `alias`, `alias @ prompt:label` or `alias @ prompt v3`. */
export function targetLabel(target: Pick<TargetSummary, "model" | "prompt">): string {
  const p = target.prompt;
  if (!p) return target.model;
  const which = p.version !== undefined ? ` v${p.version}` : p.label ? `:${p.label}` : "";
  return `${target.model} @ ${p.name}${which}`;
}

export type ChartPoint = { index: number; label: string; cost: number; passRate: number };

/** One point per target that has finished items: its total cost (USD) against its pass rate (0–100). */
export const chartPoints = (targets: TargetSummary[]): ChartPoint[] =>
  targets
    .filter((t) => t.passRate !== null)
    .map((t) => ({
      index: t.index,
      label: targetLabel(t),
      cost: Number(t.cost),
      passRate: Math.round((t.passRate ?? 0) * 1000) / 10,
    }));

/** A run still moving: the page polls it. */
export const isLive = (status: RunStatus) => status === "queued" || status === "running";

/** Seconds as "1 h 2 min", "3 min 5 s", "12 s". */
export function formatEta(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s >= 3600) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  if (s >= 60) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${s} s`;
}
