// A run's timeline, prepared for drawing (pure, like replay-view.ts): one bar per call on the run's own clock.
import type { RunCall } from "./contracts";
import type { WaterfallRow } from "./replay-view";

export type RunTimeline = { rows: WaterfallRow[]; totalMs: number };

/**
 * Each call of a run placed at its start (ms after the run's first call started) and as long as it took: a tool
 * call over /mcp as a tool bar, anything else as a model call; a failed call red; a running one as long as it has
 * run so far, unknown (0). Calls come in start order, as runReplay returns them.
 */
export function buildRunTimeline(calls: RunCall[]): RunTimeline {
  const first = calls.length ? Math.min(...calls.map((c) => Date.parse(c.turn.startedAt))) : 0;
  const rows = calls.map(({ turn }, i): WaterfallRow => {
    const ok = turn.status === "success" ? true : turn.status === "running" ? null : false;
    return {
      key: turn.id,
      kind: turn.source === "mcp" ? "tool" : "model",
      label: `${i + 1}. ${turn.source === "mcp" ? turn.requestedModel.replace(/^tool:/, "") : (turn.servedModel ?? turn.requestedModel)}`,
      startMs: Date.parse(turn.startedAt) - first,
      durationMs: turn.latencyMs ?? 0,
      firstTokenMs: turn.firstTokenMs,
      seq: null,
      ok,
    };
  });
  const totalMs = rows.reduce((max, r) => Math.max(max, r.startMs + r.durationMs), 0);
  return { rows, totalMs };
}
