// What the review-queue routes take and answer (/api/review-queues/…), shared by the routes, the queue pages and the
// OpenAPI document. Browser-safe: zod and plain types only.

import {
  FEEDBACK_SCORE,
  SCORE_CATEGORY_MAX,
  SCORE_COMMENT_MAX,
  scoreName,
} from "@/features/scores/contracts";
import { z } from "@/lib/core/schema/zod";

export const REVIEW_RULE_TYPES = ["thumbs_down", "failed", "guardrail", "score_below", "sample"] as const;
export type ReviewRuleType = (typeof REVIEW_RULE_TYPES)[number];

/** Who may work a queue: tenant admins only, or also the members an admin gave the reviewer right. */
export const REVIEWER_SCOPES = ["admins", "reviewers"] as const;
export type ReviewerScope = (typeof REVIEWER_SCOPES)[number];

export const REVIEW_RULES_MAX = 10;
export const REVIEW_SCORE_NAMES_MAX = 20;
export const REVIEW_SCORES_MAX = 20;
export const REVIEW_LEASE_MIN = 30;
export const REVIEW_LEASE_MAX = 86_400;
export const REVIEW_LEASE_DEFAULT = 600;
export const REVIEW_ITEMS_PAGE_MAX = 100;

const finite = (what: string) =>
  z.number(`${what} is a number`).refine(Number.isFinite, `${what} must be finite`);

/** What puts a turn in a queue; an item's `reason` is the type of the rule that put it there. */
export const reviewRule = z.discriminatedUnion("type", [
  /** A person's thumbs down (the drawer's `thumbs` score, value 0) given since the last fill. */
  z.strictObject({ type: z.literal("thumbs_down") }),
  /** A turn that failed or was interrupted. */
  z.strictObject({ type: z.literal("failed") }),
  /** A turn where a guardrail acted (blocked, redacted or warned). */
  z.strictObject({ type: z.literal("guardrail") }),
  /** A score of this name below the threshold, written since the last fill. */
  z.strictObject({ type: z.literal("score_below"), name: scoreName, threshold: finite("threshold") }),
  /**
   * A random `percent` % of turns (decided on the turn id, so a re-fill never samples again), optionally only of
   * one source (`chat`, `api`, …) or one requested model alias.
   */
  z.strictObject({
    type: z.literal("sample"),
    percent: finite("percent").gt(0, "percent is above 0").max(100, "percent is at most 100"),
    source: z.string().trim().min(1).max(40, "a source is at most 40 characters").optional(),
    alias: z.string().trim().min(1).max(200, "an alias is at most 200 characters").optional(),
  }),
]);
export type ReviewRule = z.infer<typeof reviewRule>;

export const reviewRules = z
  .array(reviewRule)
  .min(1, "a queue needs at least one rule")
  .max(REVIEW_RULES_MAX, `at most ${REVIEW_RULES_MAX} rules`);

const queueName = z
  .string()
  .trim()
  .min(1, "a queue needs a name")
  .max(100, "a queue name is at most 100 characters");
const queueDescription = z.string().trim().max(1_000, "a description is at most 1,000 characters");
const scoreNames = z
  .array(scoreName)
  .max(REVIEW_SCORE_NAMES_MAX, `at most ${REVIEW_SCORE_NAMES_MAX} scores`)
  .refine((names) => new Set(names).size === names.length, "each score once");
const leaseSeconds = z
  .number("leaseSeconds is a number of seconds")
  .int("leaseSeconds is whole seconds")
  .min(REVIEW_LEASE_MIN, `a lease is at least ${REVIEW_LEASE_MIN} seconds`)
  .max(REVIEW_LEASE_MAX, `a lease is at most ${REVIEW_LEASE_MAX} seconds`);

/** POST /api/review-queues. `scoreNames` are the tenant's score configs (or `thumbs`) the review form asks for. */
export const reviewQueueInput = z.strictObject({
  name: queueName,
  description: queueDescription.optional(),
  rules: reviewRules,
  reviewers: z.enum(REVIEWER_SCOPES).default("admins"),
  scoreNames: scoreNames.default([]),
  datasetId: z.uuid("a dataset id").nullable().optional(),
  leaseSeconds: leaseSeconds.default(REVIEW_LEASE_DEFAULT),
});
export type ReviewQueueInput = z.infer<typeof reviewQueueInput>;

/** PATCH /api/review-queues/{id}: any of the fields, each replacing what was there. */
export const reviewQueuePatch = z.strictObject({
  name: queueName.optional(),
  description: queueDescription.nullable().optional(),
  rules: reviewRules.optional(),
  reviewers: z.enum(REVIEWER_SCOPES).optional(),
  scoreNames: scoreNames.optional(),
  datasetId: z.uuid("a dataset id").nullable().optional(),
  leaseSeconds: leaseSeconds.optional(),
});
export type ReviewQueuePatch = z.infer<typeof reviewQueuePatch>;

/** One score the reviewer gives with `done` (a `human` score on the item's turn, validated by its config). */
export const reviewScore = z.strictObject({
  name: scoreName,
  value: z.union([
    z.number().refine(Number.isFinite, "a number, not NaN or infinite"),
    z.boolean(),
    z.string().trim().min(1, "a category must not be empty").max(SCORE_CATEGORY_MAX),
  ]),
  comment: z
    .string()
    .trim()
    .max(SCORE_COMMENT_MAX, `a comment is at most ${SCORE_COMMENT_MAX} characters`)
    .optional(),
});
export type ReviewScore = z.infer<typeof reviewScore>;

/**
 * POST /api/review-queues/{id}/items/{itemId}/done. `comment` is the review's note: it goes on every score that has
 * no comment of its own, so it needs at least one score.
 */
export const reviewDoneInput = z
  .strictObject({
    scores: z
      .array(reviewScore)
      .max(REVIEW_SCORES_MAX, `at most ${REVIEW_SCORES_MAX} scores`)
      .refine((s) => new Set(s.map((x) => x.name)).size === s.length, "each score name once")
      .default([]),
    comment: z
      .string()
      .trim()
      .max(SCORE_COMMENT_MAX, `a comment is at most ${SCORE_COMMENT_MAX} characters`)
      .optional(),
  })
  .refine((d) => !d.comment || d.scores.length > 0, {
    message: "a comment goes with at least one score",
    path: ["comment"],
  });
export type ReviewDoneInput = z.infer<typeof reviewDoneInput>;

/** POST /api/review-queues/{id}/items/{itemId}/dataset: the queue's dataset unless another is named. */
export const reviewDatasetInput = z.strictObject({ datasetId: z.uuid("a dataset id").optional() });

export const REVIEW_ITEM_STATUSES = ["open", "done"] as const;
export type ReviewItemStatus = (typeof REVIEW_ITEM_STATUSES)[number];

/** GET /api/review-queues/{id}/items. */
export const reviewItemsQuery = z.strictObject({
  status: z.enum(REVIEW_ITEM_STATUSES).default("open"),
  limit: z.coerce
    .number()
    .int()
    .min(1, "limit is at least 1")
    .max(REVIEW_ITEMS_PAGE_MAX, `limit is at most ${REVIEW_ITEMS_PAGE_MAX}`)
    .default(50),
  cursor: z.string().trim().max(200, "not a cursor from this list").optional(),
});
export type ReviewItemsQuery = z.infer<typeof reviewItemsQuery>;

/** The thumbs score is always allowed in a queue's form, with or without a config. */
export const REVIEW_FEEDBACK_SCORE = FEEDBACK_SCORE;

export type ReviewQueueCounts = {
  open: number;
  /** Open items under a live lease (being reviewed now). */
  claimed: number;
  done: number;
};

/** A queue as the routes answer it. */
export type ReviewQueueView = {
  id: string;
  name: string;
  description: string | null;
  rules: ReviewRule[];
  reviewers: ReviewerScope;
  scoreNames: string[];
  datasetId: string | null;
  leaseSeconds: number;
  /** The filler's watermark (ISO), or null before the first fill. */
  filledUntil: string | null;
  archivedAt: string | null;
  createdAt: string;
  updatedAt: string;
  counts: ReviewQueueCounts;
};

/** GET /api/review-queues. */
export type ReviewQueueList = { queues: ReviewQueueView[] };

/** The item `next` hands the caller (claimed until leaseUntil). */
export type ReviewClaim = {
  id: string;
  turnId: string;
  reason: ReviewRuleType;
  leaseUntil: string;
  createdAt: string;
};

/** POST /api/review-queues/{id}/next: the caller's item (null when none is free) and how many are still open. */
export type ReviewNext = { item: ReviewClaim | null; open: number };

/** An item in GET /api/review-queues/{id}/items. */
export type ReviewItemView = {
  id: string;
  turnId: string;
  reason: ReviewRuleType;
  status: ReviewItemStatus;
  claimedBy: string | null;
  leaseUntil: string | null;
  skippedBy: string[];
  doneBy: string | null;
  doneAt: string | null;
  createdAt: string;
};

export type ReviewItemPage = { items: ReviewItemView[]; nextCursor: string | null };

/** POST …/done: the item, now done, and the scores written on its turn. */
export type ReviewDone = { item: ReviewItemView; scoreIds: string[] };

/** POST …/skip. */
export type ReviewSkip = { item: ReviewItemView };

/** POST …/dataset (201). */
export type ReviewDatasetAdd = { datasetItemId: string; datasetId: string };

/** POST /api/review-queues/{id}/fill. */
export type ReviewFill = { added: number };

/** GET /api/review-queues/{id}/stats. */
export type ReviewQueueStats = ReviewQueueCounts & {
  total: number;
  reviewers: { userId: string; email: string; doneToday: number; done7d: number }[];
  /** The last 14 days (UTC), oldest first, each day's done items (days with none included, as 0). */
  donePerDay: { day: string; count: number }[];
};

/** Error codes the routes answer with (409 unless said otherwise). */
export const REVIEW_ERROR_CODES = {
  leaseLost: "review_lease_lost",
  itemDone: "review_item_done",
} as const;
