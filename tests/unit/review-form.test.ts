import { describe, expect, it } from "vitest";
import {
  bodyOf,
  draftOf,
  EMPTY_QUEUE,
  newRule,
  type QueueDraft,
  type RuleDraft,
} from "@/features/reviews/components/queue-form-state";
import {
  activeField,
  answerYesNo,
  fieldsOf,
  optionsOf,
  pickOption,
  type ScoreField,
  toSubmission,
} from "@/features/reviews/components/review-form-state";
import { type KeyPress, reviewKeyAction } from "@/features/reviews/components/review-keys";
import type { ScoreConfigView } from "@/features/scores/contracts";

const config = (c: Partial<ScoreConfigView> & Pick<ScoreConfigView, "name" | "type">): ScoreConfigView => ({
  id: c.name,
  min: null,
  max: null,
  categories: [],
  description: null,
  archivedAt: null,
  createdAt: "",
  updatedAt: "",
  ...c,
});

const configs = [
  config({ name: "stars", type: "numeric", min: 1, max: 5 }),
  config({ name: "verdict", type: "categorical", categories: ["good", "bad", "unclear"] }),
  config({ name: "safe", type: "boolean" }),
  config({ name: "latency", type: "numeric", min: 0, max: 100 }),
  config({ name: "old", type: "categorical", categories: ["a"], archivedAt: "2026-01-01T00:00:00Z" }),
];

describe("review form fields", () => {
  it("takes each score's kind from its live config, thumbs as boolean, and an unknown or archived name as an open number", () => {
    expect(fieldsOf(["verdict", "thumbs", "stars", "old", "free"], configs)).toEqual([
      { name: "verdict", kind: "categorical", categories: ["good", "bad", "unclear"] },
      { name: "thumbs", kind: "boolean" },
      { name: "stars", kind: "numeric", min: 1, max: 5 },
      { name: "old", kind: "numeric", min: null, max: null },
      { name: "free", kind: "numeric", min: null, max: null },
    ]);
  });

  it("offers buttons for booleans, categories and small whole ranges only", () => {
    const [stars, verdict, safe, latency] = fieldsOf(["stars", "verdict", "safe", "latency"], configs);
    expect(optionsOf(stars!)).toEqual([1, 2, 3, 4, 5]);
    expect(optionsOf(verdict!)).toEqual(["good", "bad", "unclear"]);
    expect(optionsOf(safe!)).toEqual([true, false]);
    expect(optionsOf(latency!)).toEqual([]);
    expect(optionsOf({ name: "x", kind: "numeric", min: 0.5, max: 2 })).toEqual([]);
  });
});

describe("review form keys' effect", () => {
  const fields: ScoreField[] = fieldsOf(["verdict", "stars", "safe"], configs);

  it("digits fill the first unanswered score in turn, then change the last", () => {
    let values = pickOption(fields, {}, null, 2);
    expect(values).toEqual({ verdict: "bad" });
    values = pickOption(fields, values, null, 4);
    expect(values).toEqual({ verdict: "bad", stars: 4 });
    values = pickOption(fields, values, null, 2);
    expect(values).toEqual({ verdict: "bad", stars: 4, safe: false });
    expect(activeField(fields, values, null)).toBe(2);
    expect(pickOption(fields, values, null, 1)).toEqual({ verdict: "bad", stars: 4, safe: true });
  });

  it("a digit acts on the focused score, and one past its options changes nothing", () => {
    const values = { verdict: "good", stars: 3 };
    expect(pickOption(fields, values, "verdict", 3)).toEqual({ verdict: "unclear", stars: 3 });
    expect(pickOption(fields, values, "verdict", 9)).toBe(values);
  });

  it("y and n answer a boolean even when another score is active, and nothing without one", () => {
    expect(answerYesNo(fields, {}, null, true)).toEqual({ safe: true });
    expect(answerYesNo(fields, { safe: true }, null, false)).toEqual({ safe: false });
    const noBoolean = fieldsOf(["verdict"], configs);
    const values = {};
    expect(answerYesNo(noBoolean, values, null, true)).toBe(values);
  });

  it("a submit needs every score, a number in its range", () => {
    expect(toSubmission(fields, { verdict: "good" })).toEqual({
      ok: false,
      problems: { stars: "missing", safe: "missing" },
    });
    const open = fieldsOf(["stars", "latency"], configs);
    expect(toSubmission(open, { stars: "7", latency: "x" })).toEqual({
      ok: false,
      problems: { stars: "range", latency: "notNumber" },
    });
    expect(toSubmission(open, { stars: 5, latency: " 42 " })).toEqual({
      ok: true,
      scores: [
        { name: "stars", value: 5 },
        { name: "latency", value: 42 },
      ],
    });
    expect(toSubmission([], {})).toEqual({ ok: true, scores: [] });
  });
});

describe("review shortcuts", () => {
  const press = (key: string, over: Partial<KeyPress> = {}): KeyPress => ({
    key,
    ctrlKey: false,
    metaKey: false,
    altKey: false,
    repeat: false,
    targetTag: "BODY",
    targetEditable: false,
    targetIsOption: false,
    ...over,
  });

  it("maps the single keys", () => {
    expect(reviewKeyAction(press("3"))).toEqual({ type: "pick", n: 3 });
    expect(reviewKeyAction(press("0"))).toBeNull();
    expect(reviewKeyAction(press("y"))).toEqual({ type: "yesNo", yes: true });
    expect(reviewKeyAction(press("N"))).toEqual({ type: "yesNo", yes: false });
    expect(reviewKeyAction(press("Enter"))).toEqual({ type: "submit" });
    expect(reviewKeyAction(press("s"))).toEqual({ type: "skip" });
    expect(reviewKeyAction(press("d"))).toEqual({ type: "dataset" });
    expect(reviewKeyAction(press("?"))).toEqual({ type: "help" });
    expect(reviewKeyAction(press("Escape"))).toEqual({ type: "closeHelp" });
    expect(reviewKeyAction(press("x"))).toBeNull();
  });

  it("never fires while typing, except Ctrl/Cmd+Enter", () => {
    for (const targetTag of ["INPUT", "TEXTAREA", "SELECT"])
      for (const key of ["1", "y", "s", "d", "?", "Enter"])
        expect(reviewKeyAction(press(key, { targetTag }))).toBeNull();
    expect(reviewKeyAction(press("s", { targetEditable: true, targetTag: "DIV" }))).toBeNull();
    expect(reviewKeyAction(press("Enter", { targetTag: "TEXTAREA", ctrlKey: true }))).toEqual({
      type: "submit",
    });
    expect(reviewKeyAction(press("Enter", { targetTag: "TEXTAREA", metaKey: true }))).toEqual({
      type: "submit",
    });
  });

  it("leaves modified keys, repeats, and Enter on other buttons to the browser", () => {
    expect(reviewKeyAction(press("s", { ctrlKey: true }))).toBeNull();
    expect(reviewKeyAction(press("d", { metaKey: true }))).toBeNull();
    expect(reviewKeyAction(press("Enter", { repeat: true }))).toBeNull();
    expect(reviewKeyAction(press("Enter", { targetTag: "BUTTON" }))).toBeNull();
    expect(reviewKeyAction(press("Enter", { targetTag: "A" }))).toBeNull();
    expect(reviewKeyAction(press("Enter", { targetTag: "BUTTON", targetIsOption: true }))).toEqual({
      type: "submit",
    });
  });
});

describe("the queue form's body", () => {
  const draft = (over: Partial<QueueDraft> = {}): QueueDraft => ({
    ...EMPTY_QUEUE,
    name: "Bad answers",
    ...over,
  });

  it("sends each rule with only its own fields, an empty dataset as null and the lease as a number", () => {
    const rules: RuleDraft[] = [
      { ...newRule("score_below"), name: "stars", threshold: " 2.5 ", percent: "10" },
      { ...newRule("sample"), percent: "100", source: "api", alias: " offline-demo " },
      { ...newRule("sample"), percent: "5" },
      newRule("thumbs_down"),
    ];
    expect(bodyOf(draft({ rules, scoreNames: ["thumbs"], leaseSeconds: "120" }), "nan")).toEqual({
      ok: true,
      body: {
        name: "Bad answers",
        rules: [
          { type: "score_below", name: "stars", threshold: 2.5 },
          { type: "sample", percent: 100, source: "api", alias: "offline-demo" },
          { type: "sample", percent: 5 },
          { type: "thumbs_down" },
        ],
        reviewers: "admins",
        scoreNames: ["thumbs"],
        datasetId: null,
        leaseSeconds: 120,
      },
    });
  });

  it("says which inputs hold no number before sending anything", () => {
    const rules = [
      { ...newRule("score_below"), name: "stars", threshold: "" },
      { ...newRule("sample"), percent: "x" },
    ];
    expect(bodyOf(draft({ rules, leaseSeconds: "ten" }), "a number")).toEqual({
      ok: false,
      fields: {
        "rules.0.threshold": ["a number"],
        "rules.1.percent": ["a number"],
        leaseSeconds: ["a number"],
      },
    });
  });

  it("starts an edit from the saved queue", () => {
    const d = draftOf({
      id: "q",
      name: "Q",
      description: null,
      rules: [{ type: "sample", percent: 20, alias: "gpt" }, { type: "failed" }],
      reviewers: "reviewers",
      scoreNames: ["thumbs"],
      datasetId: null,
      leaseSeconds: 300,
      filledUntil: null,
      archivedAt: null,
      createdAt: "",
      updatedAt: "",
      counts: { open: 0, claimed: 0, done: 0 },
    });
    expect(d.rules.map((r) => [r.type, r.percent, r.alias])).toEqual([
      ["sample", "20", "gpt"],
      ["failed", "10", ""],
    ]);
    expect(bodyOf(d, "n")).toMatchObject({
      ok: true,
      body: { rules: [{ type: "sample", percent: 20, alias: "gpt" }, { type: "failed" }] },
    });
  });
});
