// A run's items as CSV (one line per item and target, exact costs).
import "server-only";
import type { Database } from "@/db";
import { csvField } from "@/lib/core/text/csv";
import { getRun } from "./runs";

const csvCell = (value: unknown): string => {
  const text =
    value === null || value === undefined ? "" : typeof value === "string" ? value : JSON.stringify(value);
  return csvField(text);
};

/** The run's items as CSV, one line per item and target, with exact costs. */
export async function runCsv(db: Database, tenantId: string, id: string): Promise<string> {
  const run = await getRun(db, tenantId, id);
  const header = [
    "item_id",
    "target",
    "model",
    "prompt",
    "status",
    "passed",
    "score",
    "latency_ms",
    "cost_usd",
    "output",
    "expected",
    "input",
    "scores",
    "error",
    "turn_id",
  ];
  const lines = [header.join(",")];
  for (const item of run.items) {
    const target = run.targets[item.targetIndex]!;
    lines.push(
      [
        item.itemId,
        item.targetIndex,
        target.model,
        target.prompt ? `${target.prompt.name}@${target.prompt.version ?? target.prompt.label}` : "",
        item.status,
        item.passed === null ? "" : String(item.passed),
        item.score ?? "",
        item.latencyMs ?? "",
        item.cost ?? "",
        item.output,
        item.expected,
        item.input,
        item.scores?.map((s) => `${s.type}:${s.passed ? "pass" : "fail"} ${s.reason}`).join("; ") ?? "",
        item.error,
        item.turnId,
      ]
        .map(csvCell)
        .join(","),
    );
  }
  return `${lines.join("\n")}\n`;
}
