// Human review: queues an admin defines, filled by rules from the ledger (thumbs down, failed or interrupted,
// guardrail hit, a score below a threshold, a random sample), worked through by reviewers one item at a time.
import "server-only";
import { sql } from "drizzle-orm";
import { index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt, id, updatedAt } from "./columns";
import { tenantRef } from "./references";

/** What puts a turn in a queue (checked by the queue's filler over the turns and scores since its last fill). */
export type ReviewRule =
  | { type: "thumbs_down" }
  | { type: "failed" }
  | { type: "guardrail" }
  | { type: "score_below"; name: string; threshold: number }
  | { type: "sample"; percent: number; source?: string; alias?: string };

/** Who may work a queue: tenant admins only, or also the members given the reviewer right. */
export const REVIEWER_SCOPES = ["admins", "reviewers"] as const;
export type ReviewerScope = (typeof REVIEWER_SCOPES)[number];

export const reviewQueue = pgTable(
  "review_queue",
  {
    id: id(),
    tenantId: tenantRef(),
    name: text("name").notNull(),
    description: text("description"),
    rules: jsonb("rules").$type<ReviewRule[]>().notNull().default([]),
    reviewers: text("reviewers", { enum: REVIEWER_SCOPES }).notNull().default("admins"),
    // The score configs (by name) the review form asks for, in order.
    scoreNames: text("score_names").array().notNull().default(sql`'{}'::text[]`),
    // "Add to dataset" puts the item's turn in this dataset unless the reviewer picks another.
    datasetId: uuid("dataset_id"),
    // How long a claimed item stays the claimer's before another reviewer may take it.
    leaseSeconds: integer("lease_seconds").notNull().default(600),
    // The filler's watermark: turns started (and scores written) after this, less a look-back, are checked.
    filledUntil: timestamp("filled_until", { withTimezone: true }),
    createdBy: uuid("created_by").notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    archivedAt: timestamp("archived_at", { withTimezone: true }),
  },
  (t) => [uniqueIndex("review_queue_tenant_name_idx").on(t.tenantId, t.name)],
);
export type ReviewQueue = typeof reviewQueue.$inferSelect;

export const REVIEW_ITEM_STATUSES = ["open", "done"] as const;
export type ReviewItemStatus = (typeof REVIEW_ITEM_STATUSES)[number];

export const reviewItem = pgTable(
  "review_item",
  {
    id: id(),
    tenantId: tenantRef(),
    queueId: uuid("queue_id")
      .notNull()
      .references(() => reviewQueue.id, { onDelete: "cascade" }),
    // The ledger row to review (sys_agent_turn.id; the ledger is partitioned, so no foreign key).
    turnId: uuid("turn_id").notNull(),
    // Which rule put it here (the rule's type), shown beside the item.
    reason: text("reason").notNull(),
    status: text("status", { enum: REVIEW_ITEM_STATUSES }).notNull().default("open"),
    // A claim: the reviewer holding the item until lease_until; an expired lease frees it for anyone.
    claimedBy: uuid("claimed_by"),
    leaseUntil: timestamp("lease_until", { withTimezone: true }),
    // Reviewers who skipped it: they are not offered it again; others are.
    skippedBy: uuid("skipped_by").array().notNull().default(sql`'{}'::uuid[]`),
    doneBy: uuid("done_by"),
    doneAt: timestamp("done_at", { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("review_item_queue_turn_idx").on(t.queueId, t.turnId),
    index("review_item_queue_open_idx").on(t.queueId, t.createdAt).where(sql`${t.status} = 'open'`),
    index("review_item_tenant_done_idx").on(t.tenantId, t.queueId, t.doneAt).where(sql`${t.status} = 'done'`),
  ],
);
export type ReviewItem = typeof reviewItem.$inferSelect;
