import "server-only";
import { z } from "zod";
import {
  REVIEW_ITEM_STATUSES,
  REVIEW_RULE_TYPES,
  REVIEWER_SCOPES,
  reviewDatasetInput,
  reviewDoneInput,
  reviewItemsQuery,
  reviewQueueInput,
  reviewQueuePatch,
  reviewRule,
} from "@/features/reviews/contracts";
import { AT, ID, LATER } from "../examples";
import { answer, json, type Operation } from "../registry";

const TAG = "Review queues";
const QUEUE = "0193a0c2-7d1e-7c3a-9f2b-4c5d6e7f8a41";
const ITEM = "0193a0c2-7d1e-7c3a-9f2b-4c5d6e7f8a42";
const SCORE = "0193a0c2-7d1e-7c3a-9f2b-4c5d6e7f8a43";
const DATASET_ITEM = "0193a0c2-7d1e-7c3a-9f2b-4c5d6e7f8a44";

const REVIEWER_ACCESS =
  "tenant admins: every queue of the tenant; members with the reviewer right: the live queues open to reviewers " +
  "(another queue is 404); other members: 403";

const counts = z.object({
  open: z.number().int().describe("items not yet reviewed"),
  claimed: z.number().int().describe("open items a reviewer holds under a live lease"),
  done: z.number().int(),
});
const queueView = z.object({
  id: z.uuid(),
  name: z.string(),
  description: z.string().nullable(),
  rules: z.array(reviewRule),
  reviewers: z
    .enum(REVIEWER_SCOPES)
    .describe("admins: tenant admins only; reviewers: also members with the right"),
  scoreNames: z
    .array(z.string())
    .describe("the score configs (or thumbs) the review form asks for, in order"),
  datasetId: z.uuid().nullable().describe("where “add to dataset” puts a turn unless another is named"),
  leaseSeconds: z.number().int(),
  filledUntil: z.string().nullable().describe("the filler's watermark, or null before the first fill"),
  archivedAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  counts,
});
const queueExample = {
  id: QUEUE,
  name: "Thumbs down",
  description: "Answers people disliked, and 5 % of the API's calls.",
  rules: [{ type: "thumbs_down" as const }, { type: "sample" as const, percent: 5, source: "api" }],
  reviewers: "reviewers" as const,
  scoreNames: ["helpfulness", "thumbs"],
  datasetId: ID.dataset,
  leaseSeconds: 600,
  filledUntil: AT,
  archivedAt: null,
  createdAt: AT,
  updatedAt: AT,
  counts: { open: 12, claimed: 2, done: 40 },
};
const queueAnswer = z.object({ queue: queueView });
const itemView = z.object({
  id: z.uuid(),
  turnId: z.uuid().describe("the ledger row to review"),
  reason: z.enum(REVIEW_RULE_TYPES).describe("the rule that put it in the queue"),
  status: z.enum(REVIEW_ITEM_STATUSES),
  claimedBy: z.uuid().nullable(),
  leaseUntil: z.string().nullable(),
  skippedBy: z.array(z.uuid()).describe("reviewers who skipped it (it is not offered to them again)"),
  doneBy: z.uuid().nullable(),
  doneAt: z.string().nullable(),
  createdAt: z.string(),
});
const itemExample = {
  id: ITEM,
  turnId: ID.turn,
  reason: "thumbs_down" as const,
  status: "done" as const,
  claimedBy: ID.user,
  leaseUntil: null,
  skippedBy: [],
  doneBy: ID.user,
  doneAt: AT,
  createdAt: AT,
};
const queuePath = z.object({ id: z.uuid().describe("the queue's id") });
const itemPath = z.object({
  id: z.uuid().describe("the queue's id"),
  itemId: z.uuid().describe("the item's id"),
});
const NOT_FOUND = "no such queue in the active tenant that the caller may work (another tenant's included)";
const ITEM_NOT_FOUND = "no such queue, or no such item in it, in the active tenant";
const LEASE =
  "`reason` `review_lease_lost`: the caller does not hold the item (its lease ran out, or another reviewer has " +
  "it); `review_item_done`: it is already reviewed";

export const reviewOperations: Operation[] = [
  {
    method: "GET",
    path: "/api/review-queues",
    route: "app/api/review-queues/route.ts",
    operationId: "listReviewQueues",
    tag: TAG,
    summary: "Review queues",
    description: "The live queues the caller may work, by name, with their open, claimed and done counts.",
    guard: "user",
    tenant: true,
    access: REVIEWER_ACCESS,
    answers: {
      200: answer("The queues.", z.object({ queues: z.array(queueView) }), { queues: [queueExample] }),
    },
    errorDialect: "app",
    errors: { 403: "a member without the reviewer right" },
  },
  {
    method: "POST",
    path: "/api/review-queues",
    route: "app/api/review-queues/route.ts",
    operationId: "createReviewQueue",
    tag: TAG,
    summary: "Create a review queue",
    description:
      "Its rules (1 to 10: `thumbs_down`, `failed`, `guardrail`, `score_below` {name, threshold}, `sample` " +
      "{percent, source?, alias?}), who reviews, the scores its form asks for, its dataset and lease. The worker " +
      "fills it every minute (its first fill reaches 7 days back). Logged in the admin changes.",
    guard: "tenant-admin",
    tenant: true,
    body: json(
      reviewQueueInput,
      {
        name: "Thumbs down",
        rules: [{ type: "thumbs_down" }, { type: "sample", percent: 5, source: "api" }],
        reviewers: "reviewers",
        scoreNames: ["helpfulness", "thumbs"],
        datasetId: ID.dataset,
      },
      "ReviewQueueInput",
    ),
    answers: { 201: answer("The queue.", queueAnswer, { queue: queueExample }) },
    errorDialect: "app",
    errors: {
      409: "the tenant has a queue of that name (the fields name `name`)",
      422: "a field is invalid; a score name that is no live score config (`scoreNames`); a dataset not the tenant's (`datasetId`)",
    },
  },
  {
    method: "GET",
    path: "/api/review-queues/{id}",
    route: "app/api/review-queues/[id]/route.ts",
    operationId: "getReviewQueue",
    tag: TAG,
    summary: "A review queue",
    guard: "user",
    tenant: true,
    access: REVIEWER_ACCESS,
    params: { path: queuePath },
    answers: { 200: answer("The queue.", queueAnswer, { queue: queueExample }) },
    errorDialect: "app",
    errors: { 403: "a member without the reviewer right", 404: NOT_FOUND },
  },
  {
    method: "PATCH",
    path: "/api/review-queues/{id}",
    route: "app/api/review-queues/[id]/route.ts",
    operationId: "updateReviewQueue",
    tag: TAG,
    summary: "Change a review queue",
    description: "Each field given replaces what was there; items already queued stay. Logged.",
    guard: "tenant-admin",
    tenant: true,
    params: { path: queuePath },
    body: json(reviewQueuePatch, { leaseSeconds: 900 }, "ReviewQueuePatch"),
    answers: { 200: answer("The queue.", queueAnswer, { queue: { ...queueExample, leaseSeconds: 900 } }) },
    errorDialect: "app",
    errors: { 404: NOT_FOUND, 409: "another queue has that name", 422: "a field is invalid" },
  },
  {
    method: "POST",
    path: "/api/review-queues/{id}/archive",
    route: "app/api/review-queues/[id]/archive/route.ts",
    operationId: "archiveReviewQueue",
    tag: TAG,
    summary: "Archive a review queue",
    description: "It fills no more and leaves the lists; its items and their scores stay. Logged.",
    guard: "tenant-admin",
    tenant: true,
    params: { path: queuePath },
    answers: { 200: answer("The queue.", queueAnswer, { queue: { ...queueExample, archivedAt: AT } }) },
    errorDialect: "app",
    errors: { 404: NOT_FOUND },
  },
  {
    method: "POST",
    path: "/api/review-queues/{id}/fill",
    route: "app/api/review-queues/[id]/fill/route.ts",
    operationId: "fillReviewQueue",
    tag: TAG,
    summary: "Fill a review queue now",
    description:
      "The turns its rules match since its last fill (less a 5-minute look-back) become items, each turn once, at " +
      "most 1,000 a fill. The worker does this every minute.",
    guard: "tenant-admin",
    tenant: true,
    params: { path: queuePath },
    answers: {
      200: answer("How many items it added.", z.object({ added: z.number().int() }), { added: 7 }),
    },
    errorDialect: "app",
    errors: { 404: NOT_FOUND },
  },
  {
    method: "POST",
    path: "/api/review-queues/{id}/next",
    route: "app/api/review-queues/[id]/next/route.ts",
    operationId: "nextReviewItem",
    tag: TAG,
    summary: "Claim the next item",
    description:
      "The item the caller holds under a live lease, else the oldest open item nobody holds that the caller has " +
      "not skipped, claimed for the queue's lease (never the same item to two reviewers). `item` is null when " +
      "none is free. Fills the queue first when its last fill is older than 15 seconds.",
    guard: "user",
    tenant: true,
    access: REVIEWER_ACCESS,
    params: { path: queuePath },
    answers: {
      200: answer(
        "The claimed item, and the queue's open items.",
        z.object({
          item: z
            .object({
              id: z.uuid(),
              turnId: z.uuid(),
              reason: z.enum(REVIEW_RULE_TYPES),
              leaseUntil: z.string(),
              createdAt: z.string(),
            })
            .nullable(),
          open: z.number().int(),
        }),
        {
          item: { id: ITEM, turnId: ID.turn, reason: "thumbs_down", leaseUntil: LATER, createdAt: AT },
          open: 12,
        },
      ),
    },
    errorDialect: "app",
    errors: { 403: "a member without the reviewer right", 404: NOT_FOUND, 409: "the queue is archived" },
  },
  {
    method: "POST",
    path: "/api/review-queues/{id}/items/{itemId}/done",
    route: "app/api/review-queues/[id]/items/[itemId]/done/route.ts",
    operationId: "completeReviewItem",
    tag: TAG,
    summary: "Finish a claimed item",
    description:
      "Each score goes on the item's turn as the caller's own `human` score (validated by the tenant's score " +
      "config of its name; only the queue's scores and `thumbs`), and the item is done, in one transaction. " +
      "`comment` goes on each score without one of its own.",
    guard: "user",
    tenant: true,
    access: `${REVIEWER_ACCESS}; only the reviewer holding the item`,
    params: { path: itemPath },
    body: json(
      reviewDoneInput,
      {
        scores: [
          { name: "helpfulness", value: 0.2 },
          { name: "thumbs", value: false },
        ],
        comment: "Wrong price.",
      },
      "ReviewDoneInput",
    ),
    answers: {
      200: answer(
        "The item, done, and the scores written.",
        z.object({ item: itemView, scoreIds: z.array(z.uuid()) }),
        { item: itemExample, scoreIds: [SCORE] },
      ),
    },
    errorDialect: "app",
    errors: {
      403: "a member without the reviewer right",
      404: ITEM_NOT_FOUND,
      409: LEASE,
      422: "a score does not fit its config, or is not one of the queue's (`scores.N.value`, `scores.N.name`)",
    },
  },
  {
    method: "POST",
    path: "/api/review-queues/{id}/items/{itemId}/skip",
    route: "app/api/review-queues/[id]/items/[itemId]/skip/route.ts",
    operationId: "skipReviewItem",
    tag: TAG,
    summary: "Skip a claimed item",
    description: "The item is free for other reviewers again and is never offered to the caller again.",
    guard: "user",
    tenant: true,
    access: `${REVIEWER_ACCESS}; only the reviewer holding the item`,
    params: { path: itemPath },
    answers: {
      200: answer("The item.", z.object({ item: itemView }), {
        item: {
          ...itemExample,
          status: "open",
          claimedBy: null,
          doneBy: null,
          doneAt: null,
          skippedBy: [ID.user],
        },
      }),
    },
    errorDialect: "app",
    errors: { 403: "a member without the reviewer right", 404: ITEM_NOT_FOUND, 409: LEASE },
  },
  {
    method: "POST",
    path: "/api/review-queues/{id}/items/{itemId}/dataset",
    route: "app/api/review-queues/[id]/items/[itemId]/dataset/route.ts",
    operationId: "addReviewItemToDataset",
    tag: TAG,
    summary: "Add an item's turn to a dataset",
    description:
      "The turn becomes an eval dataset item as the ledger's “Add to dataset” makes it: in the queue's dataset " +
      "unless `datasetId` names another.",
    guard: "user",
    tenant: true,
    access: REVIEWER_ACCESS,
    params: { path: itemPath },
    body: json(reviewDatasetInput, { datasetId: ID.dataset }, "ReviewDatasetInput"),
    answers: {
      201: answer("The dataset item made.", z.object({ datasetItemId: z.uuid(), datasetId: z.uuid() }), {
        datasetItemId: DATASET_ITEM,
        datasetId: ID.dataset,
      }),
    },
    errorDialect: "app",
    errors: {
      403: "a member without the reviewer right",
      404: `${ITEM_NOT_FOUND}; or the dataset is not the tenant's`,
      409: "the dataset is archived",
      422: "neither the body nor the queue names a dataset (`datasetId`); the turn has no user message (`turnId`)",
    },
  },
  {
    method: "GET",
    path: "/api/review-queues/{id}/stats",
    route: "app/api/review-queues/[id]/stats/route.ts",
    operationId: "reviewQueueStats",
    tag: TAG,
    summary: "A review queue's progress",
    description:
      "Open, claimed, done and total items; each reviewer's done items today and in 7 days; done items on each " +
      "of the last 14 days (UTC, oldest first).",
    guard: "user",
    tenant: true,
    access: REVIEWER_ACCESS,
    params: { path: queuePath },
    answers: {
      200: answer(
        "The stats.",
        counts.extend({
          total: z.number().int(),
          reviewers: z.array(
            z.object({
              userId: z.uuid(),
              email: z.string(),
              doneToday: z.number().int(),
              done7d: z.number().int(),
            }),
          ),
          donePerDay: z.array(
            z.object({ day: z.string().describe("YYYY-MM-DD (UTC)"), count: z.number().int() }),
          ),
        }),
        {
          open: 12,
          claimed: 2,
          done: 40,
          total: 52,
          reviewers: [{ userId: ID.user, email: "grace@example.com", doneToday: 6, done7d: 40 }],
          donePerDay: [{ day: "2026-11-01", count: 6 }],
        },
      ),
    },
    errorDialect: "app",
    errors: { 403: "a member without the reviewer right", 404: NOT_FOUND },
  },
  {
    method: "GET",
    path: "/api/review-queues/{id}/items",
    route: "app/api/review-queues/[id]/items/route.ts",
    operationId: "listReviewItems",
    tag: TAG,
    summary: "A review queue's items",
    description:
      "A page of items (at most 100): open ones oldest first, done ones most recently done first; pass " +
      "`nextCursor` back as `cursor` for the next page.",
    guard: "tenant-admin",
    tenant: true,
    params: { path: queuePath, query: reviewItemsQuery },
    answers: {
      200: answer("The page.", z.object({ items: z.array(itemView), nextCursor: z.string().nullable() }), {
        items: [itemExample],
        nextCursor: null,
      }),
    },
    errorDialect: "app",
    errors: { 404: NOT_FOUND, 422: "a bad status, limit or cursor (the fields name it)" },
  },
];
