// A review queue's rules and its form as the routes check them: the rule types and their fields, percent's range,
// at most ten rules, score names checked like score names; and the sample's bucket, fixed by the turn id.
import { describe, expect, it } from "vitest";
import { reviewDoneInput, reviewQueueInput, reviewRule, reviewRules } from "@/features/reviews/contracts";
import { sampleBucket } from "@/features/reviews/server/fill";

const paths = (result: { success: boolean; error?: { issues: { path: PropertyKey[] }[] } }) =>
  result.success ? [] : result.error!.issues.map((i) => i.path.join("."));

describe("review rules", () => {
  it("takes each rule type with its fields", () => {
    for (const rule of [
      { type: "thumbs_down" },
      { type: "failed" },
      { type: "guardrail" },
      { type: "score_below", name: "helpfulness", threshold: 0.5 },
      { type: "sample", percent: 0.5 },
      { type: "sample", percent: 100, source: "api", alias: "fast" },
    ])
      expect(reviewRule.safeParse(rule).success, JSON.stringify(rule)).toBe(true);
  });

  it("refuses unknown types, stray fields, bad score names and percents outside (0, 100]", () => {
    expect(reviewRule.safeParse({ type: "everything" }).success).toBe(false);
    expect(paths(reviewRule.safeParse({ type: "failed", status: "stopped" }))).toEqual([""]);
    expect(paths(reviewRule.safeParse({ type: "score_below", name: "-bad", threshold: 1 }))).toEqual([
      "name",
    ]);
    expect(paths(reviewRule.safeParse({ type: "score_below", name: "ok", threshold: Number.NaN }))).toEqual([
      "threshold",
    ]);
    expect(paths(reviewRule.safeParse({ type: "sample", percent: 0 }))).toEqual(["percent"]);
    expect(paths(reviewRule.safeParse({ type: "sample", percent: 100.01 }))).toEqual(["percent"]);
    expect(paths(reviewRule.safeParse({ type: "sample", percent: 5, source: "" }))).toEqual(["source"]);
  });

  it("a queue has one to ten rules", () => {
    expect(paths(reviewRules.safeParse([]))).toEqual([""]);
    expect(reviewRules.safeParse(Array(10).fill({ type: "failed" })).success).toBe(true);
    expect(paths(reviewRules.safeParse(Array(11).fill({ type: "failed" })))).toEqual([""]);
  });

  it("a queue's lease, reviewers and score names are checked, with defaults", () => {
    const parsed = reviewQueueInput.parse({ name: " triage ", rules: [{ type: "failed" }] });
    expect(parsed).toMatchObject({ name: "triage", reviewers: "admins", scoreNames: [], leaseSeconds: 600 });
    expect(
      paths(reviewQueueInput.safeParse({ name: "q", rules: [{ type: "failed" }], leaseSeconds: 5 })),
    ).toEqual(["leaseSeconds"]);
    expect(
      paths(reviewQueueInput.safeParse({ name: "q", rules: [{ type: "failed" }], scoreNames: ["a", "a"] })),
    ).toEqual(["scoreNames"]);
    expect(
      paths(reviewQueueInput.safeParse({ name: "q", rules: [{ type: "failed" }], reviewers: "all" })),
    ).toEqual(["reviewers"]);
  });

  it("done takes at most 20 scores, each name once, and a comment only with a score", () => {
    expect(reviewDoneInput.parse({})).toEqual({ scores: [] });
    const many = Array.from({ length: 21 }, (_, i) => ({ name: `s${i}`, value: 1 }));
    expect(paths(reviewDoneInput.safeParse({ scores: many }))).toEqual(["scores"]);
    expect(
      paths(
        reviewDoneInput.safeParse({
          scores: [
            { name: "a", value: 1 },
            { name: "a", value: 2 },
          ],
        }),
      ),
    ).toEqual(["scores"]);
    expect(paths(reviewDoneInput.safeParse({ comment: "fine" }))).toEqual(["comment"]);
  });

  it("a turn's sample bucket is fixed by its id: its last eight hex digits mod 10,000", () => {
    expect(sampleBucket("0190a6f4-0000-7000-8000-000000000000")).toBe(0);
    expect(sampleBucket("0190a6f4-0000-7000-8000-0000000f423f")).toBe(9_999);
    expect(sampleBucket("0190a6f4-0000-7000-8000-0000ffffffff")).toBe(4_294_967_295 % 10_000);
    const id = crypto.randomUUID();
    expect(sampleBucket(id)).toBe(sampleBucket(id));
  });
});
