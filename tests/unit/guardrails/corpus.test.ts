import { describe, expect, it } from "vitest";
import { accuracyMarkdown, measureAccuracy } from "@/tests/fixtures/guardrails/accuracy";
import { CORPUS } from "@/tests/fixtures/guardrails/corpus";

// PRINT_ACCURACY=1 npx vitest run tests/unit/guardrails/corpus.test.ts prints the table for docs/guides/guardrails.md.
describe("guardrail checks on the labelled corpus", () => {
  const rows = measureAccuracy();
  const row = (name: string) => rows.find((r) => r.row === name)!;

  it("holds at least 300 labelled texts, positives and negatives for every check", () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(300);
    for (const r of rows) {
      expect(r.positives, r.row).toBeGreaterThan(5);
      expect(r.negatives, r.row).toBeGreaterThan(100);
    }
    if (process.env.PRINT_ACCURACY) console.log(accuracyMarkdown(rows));
  });

  it.each(["pii (any entity)", "secrets"])(
    "%s: recall at least 98 %, false positives at most 2 %",
    (name) => {
      expect(row(name).recall).toBeGreaterThanOrEqual(0.98);
      expect(row(name).falsePositiveRate).toBeLessThanOrEqual(0.02);
    },
  );

  it("every PII entity on its own: recall at least 98 %, false positives at most 2 %", () => {
    for (const r of rows.filter((r) => r.row.startsWith("pii: "))) {
      expect(r.recall, r.row).toBeGreaterThanOrEqual(0.98);
      expect(r.falsePositiveRate, r.row).toBeLessThanOrEqual(0.02);
    }
  });

  it("injection: recall at least 90 %, false positives at most 3 % (the floor reached, not a target)", () => {
    expect(row("injection").recall).toBeGreaterThanOrEqual(0.9);
    expect(row("injection").falsePositiveRate).toBeLessThanOrEqual(0.03);
  });
});
