// The queue form's drafts (what the inputs hold, as text) and their conversion to the route's body, pure so the
// form's own checks are testable. Browser-safe.
import type { ReviewerScope, ReviewQueueView, ReviewRule, ReviewRuleType } from "../contracts";

/** The ledger's sources a sample may be limited to (db/schema/turns.ts TURN_SOURCES, less the guardrail's). */
export const SAMPLE_SOURCES = ["drawer", "api", "schedule", "playground", "eval", "mcp"] as const;

/** One rule as its inputs hold it. */
export type RuleDraft = {
  type: ReviewRuleType;
  name: string;
  threshold: string;
  percent: string;
  source: string;
  alias: string;
};

export type QueueDraft = {
  name: string;
  description: string;
  rules: RuleDraft[];
  reviewers: ReviewerScope;
  scoreNames: string[];
  datasetId: string;
  leaseSeconds: string;
};

export const newRule = (type: ReviewRuleType = "failed"): RuleDraft => ({
  type,
  name: "",
  threshold: "",
  percent: "10",
  source: "",
  alias: "",
});

export const EMPTY_QUEUE: QueueDraft = {
  name: "",
  description: "",
  rules: [newRule()],
  reviewers: "admins",
  scoreNames: [],
  datasetId: "",
  leaseSeconds: "600",
};

/** A saved queue as the edit form starts from it. */
export function draftOf(queue: ReviewQueueView): QueueDraft {
  return {
    name: queue.name,
    description: queue.description ?? "",
    rules: queue.rules.map((r) => ({
      ...newRule(r.type),
      ...(r.type === "score_below" ? { name: r.name, threshold: String(r.threshold) } : {}),
      ...(r.type === "sample"
        ? { percent: String(r.percent), source: r.source ?? "", alias: r.alias ?? "" }
        : {}),
    })),
    reviewers: queue.reviewers,
    scoreNames: [...queue.scoreNames],
    datasetId: queue.datasetId ?? "",
    leaseSeconds: String(queue.leaseSeconds),
  };
}

/** A number input's value: undefined when empty, NaN when it is not a number. */
const numberOf = (text: string) => (text.trim() === "" ? undefined : Number(text.trim()));

/**
 * The body a draft sends, or the form's own messages by field (`rules.0.threshold`, `leaseSeconds`) for inputs
 * that hold no number where one is needed; everything else is the server's to check and say.
 */
export function bodyOf(
  draft: QueueDraft,
  notNumber: string,
):
  | {
      ok: true;
      body: {
        name: string;
        description?: string;
        rules: ReviewRule[];
        reviewers: ReviewerScope;
        scoreNames: string[];
        datasetId: string | null;
        leaseSeconds?: number;
      };
    }
  | { ok: false; fields: Record<string, string[]> } {
  const fields: Record<string, string[]> = {};
  const rules = draft.rules.map((r, i): ReviewRule => {
    if (r.type === "score_below") {
      const threshold = numberOf(r.threshold);
      if (threshold === undefined || Number.isNaN(threshold)) fields[`rules.${i}.threshold`] = [notNumber];
      return { type: r.type, name: r.name.trim(), threshold: threshold ?? Number.NaN };
    }
    if (r.type === "sample") {
      const percent = numberOf(r.percent);
      if (percent === undefined || Number.isNaN(percent)) fields[`rules.${i}.percent`] = [notNumber];
      return {
        type: r.type,
        percent: percent ?? Number.NaN,
        ...(r.source ? { source: r.source } : {}),
        ...(r.alias.trim() ? { alias: r.alias.trim() } : {}),
      };
    }
    return { type: r.type };
  });
  const lease = numberOf(draft.leaseSeconds);
  if (lease !== undefined && Number.isNaN(lease)) fields.leaseSeconds = [notNumber];
  if (Object.keys(fields).length) return { ok: false, fields };
  return {
    ok: true,
    body: {
      name: draft.name,
      ...(draft.description.trim() ? { description: draft.description.trim() } : {}),
      rules,
      reviewers: draft.reviewers,
      scoreNames: draft.scoreNames,
      datasetId: draft.datasetId || null,
      ...(lease !== undefined ? { leaseSeconds: lease } : {}),
    },
  };
}
