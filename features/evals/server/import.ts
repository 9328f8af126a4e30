import "server-only";
import type { z } from "zod";
import type { NewItem } from "@/features/evals/server/types";
import { AppError } from "@/lib/core/errors/app-error";
import { datasetItemInput } from "../contracts";

const MAX_LINES = 10_000;

const issueText = (issue: z.core.$ZodIssue) =>
  `${issue.path.length ? `${issue.path.join(".")}: ` : ""}${issue.message}`;

/**
 * Reads JSONL: one item per non-blank line. Every bad line is named ("line 3: input: …"), and when any line is
 * bad nothing is taken (a 422 whose fields are the lines).
 */
export function parseJsonl(text: string): NewItem[] {
  const items: NewItem[] = [];
  const errors: Record<string, string[]> = {};
  const lines = text.split(/\r?\n/);
  let count = 0;
  lines.forEach((line, i) => {
    if (!line.trim()) return;
    count++;
    const where = `line ${i + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      errors[where] = [`not JSON (${error instanceof Error ? error.message : String(error)})`];
      return;
    }
    const parsed = datasetItemInput.safeParse(value);
    if (parsed.success) items.push(parsed.data as NewItem);
    else errors[where] = parsed.error.issues.map(issueText);
  });
  if (count > MAX_LINES) throw new AppError("validation_failed", `at most ${MAX_LINES} lines at once`);
  const bad = Object.entries(errors);
  if (bad.length)
    throw new AppError(
      "validation_failed",
      `${bad.length} line${bad.length === 1 ? "" : "s"} could not be read, nothing was added: ${bad
        .slice(0, 5)
        .map(([line, e]) => `${line}: ${e.join("; ")}`)
        .join(" | ")}${bad.length > 5 ? " | …" : ""}`,
      { fields: errors },
    );
  if (!items.length)
    throw new AppError("validation_failed", "the JSONL has no items", { fields: { jsonl: ["empty"] } });
  return items;
}
