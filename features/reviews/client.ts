// The review-queue routes as the browser calls them.
import type { z } from "zod";
import type { ScoreConfigView } from "@/features/scores/contracts";
import { fetchJson, sendJson } from "@/lib/client/api";
import type {
  ReviewDatasetAdd,
  ReviewDone,
  ReviewFill,
  ReviewItemPage,
  ReviewItemStatus,
  ReviewNext,
  ReviewQueueList,
  ReviewQueueStats,
  ReviewQueueView,
  ReviewSkip,
  reviewDoneInput,
  reviewQueueInput,
  reviewQueuePatch,
} from "./contracts";

const BASE = "/api/review-queues";
const one = (id: string, tail = "") => `${BASE}/${encodeURIComponent(id)}${tail}`;
const item = (id: string, itemId: string, tail: string) =>
  one(id, `/items/${encodeURIComponent(itemId)}${tail}`);

/** Where a reviewer works a queue, and where an admin manages it. */
export const reviewHref = (queueId: string) => `/review/${encodeURIComponent(queueId)}`;
export const reviewItemHref = (queueId: string, itemId: string) =>
  `/review/${encodeURIComponent(queueId)}/${encodeURIComponent(itemId)}`;
export const QUEUES_PAGE = "/dev/admin/reviews";
export const queueHref = (queueId: string) => `${QUEUES_PAGE}/${encodeURIComponent(queueId)}`;

/** A dataset the reviewer may add an item's turn to (the tenant's live eval datasets). */
export type ReviewDataset = { id: string; name: string };
/** The evaluations' dataset page, where an added item shows. */
export const datasetHref = (id: string) => `/dev/agent/evals/datasets/${encodeURIComponent(id)}`;

export const reviewsApi = {
  list: (signal?: AbortSignal) => fetchJson<ReviewQueueList>(BASE, signal),
  create: (input: z.input<typeof reviewQueueInput>) =>
    sendJson<{ queue: ReviewQueueView }>("POST", BASE, input),
  get: (id: string, signal?: AbortSignal) => fetchJson<{ queue: ReviewQueueView }>(one(id), signal),
  update: (id: string, patch: z.input<typeof reviewQueuePatch>) =>
    sendJson<{ queue: ReviewQueueView }>("PATCH", one(id), patch),
  archive: (id: string) => sendJson<{ queue: ReviewQueueView }>("POST", one(id, "/archive")),
  fill: (id: string) => sendJson<ReviewFill>("POST", one(id, "/fill")),
  stats: (id: string, signal?: AbortSignal) => fetchJson<ReviewQueueStats>(one(id, "/stats"), signal),
  items: (id: string, query: { status: ReviewItemStatus; cursor?: string | null }, signal?: AbortSignal) => {
    const params = new URLSearchParams({ status: query.status, limit: "50" });
    if (query.cursor) params.set("cursor", query.cursor);
    return fetchJson<ReviewItemPage>(one(id, `/items?${params}`), signal);
  },
  /** The tenant's score configs and eval datasets, which a queue's form picks from (admins' routes). */
  scoreConfigs: (signal?: AbortSignal) =>
    fetchJson<{ configs: ScoreConfigView[] }>("/api/score-configs", signal),
  datasets: (signal?: AbortSignal) =>
    fetchJson<{ datasets: { id: string; name: string; archived?: boolean }[] }>(
      "/api/evals/datasets",
      signal,
    ),
  next: (id: string) => sendJson<ReviewNext>("POST", one(id, "/next"), {}),
  done: (id: string, itemId: string, input: z.input<typeof reviewDoneInput>) =>
    sendJson<ReviewDone>("POST", item(id, itemId, "/done"), input),
  skip: (id: string, itemId: string) => sendJson<ReviewSkip>("POST", item(id, itemId, "/skip"), {}),
  addToDataset: (id: string, itemId: string, datasetId?: string) =>
    sendJson<ReviewDatasetAdd>("POST", item(id, itemId, "/dataset"), datasetId ? { datasetId } : {}),
};
