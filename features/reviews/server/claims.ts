// Working a queue: `next` claims one open item for the caller under a lease (never the same item to two reviewers
// while leased), `done` scores it and closes it, `skip` lets it go to someone else, "add to dataset" copies its turn.
import "server-only";
import { and, eq, sql } from "drizzle-orm";
import type { Database, Executor } from "@/db";
import { rowsOf } from "@/db/client";
import { type ReviewItem, type ReviewQueue, reviewItem } from "@/db/schema";
import { appendItems, itemFromTurn } from "@/features/evals/server";
import {
  REVIEW_ERROR_CODES,
  REVIEW_FEEDBACK_SCORE,
  type ReviewClaim,
  type ReviewDatasetAdd,
  type ReviewDone,
  type ReviewDoneInput,
  type ReviewItemView,
  type ReviewNext,
  type ReviewRuleType,
  type ReviewSkip,
} from "@/features/reviews/contracts";
import { putScore } from "@/features/scores/server";
import { AppError, notFound } from "@/lib/core/errors/app-error";
import { isUuid } from "@/lib/core/schema/uuid";
import { fillQueue } from "./fill";
import { queueFor, type Reviewer } from "./queues";

/** `next` fills the queue first when its last fill is older than this, so a reviewer sees fresh turns. */
export const NEXT_FILL_STALE_MS = 15_000;

export const itemView = (r: ReviewItem): ReviewItemView => ({
  id: r.id,
  turnId: r.turnId,
  reason: r.reason as ReviewRuleType,
  status: r.status,
  claimedBy: r.claimedBy,
  leaseUntil: r.leaseUntil?.toISOString() ?? null,
  skippedBy: r.skippedBy,
  doneBy: r.doneBy,
  doneAt: r.doneAt?.toISOString() ?? null,
  createdAt: r.createdAt.toISOString(),
});

const claimOf = (
  r: Pick<ReviewItem, "id" | "turnId" | "reason" | "leaseUntil" | "createdAt">,
): ReviewClaim => ({
  id: r.id,
  turnId: r.turnId,
  reason: r.reason as ReviewRuleType,
  leaseUntil: (r.leaseUntil ?? new Date()).toISOString(),
  createdAt: r.createdAt.toISOString(),
});

const workable = (queue: ReviewQueue) => {
  if (queue.archivedAt) throw new AppError("conflict", `the review queue "${queue.name}" is archived`);
};

async function openCount(db: Executor, queue: ReviewQueue): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(reviewItem)
    .where(
      and(
        eq(reviewItem.tenantId, queue.tenantId),
        eq(reviewItem.queueId, queue.id),
        eq(reviewItem.status, "open"),
      ),
    );
  return Number(row?.n ?? 0);
}

type ClaimedRow = {
  id: string;
  turn_id: string;
  reason: string;
  lease_until: Date | string;
  created_at: Date | string;
};
const asDate = (v: Date | string) => (v instanceof Date ? v : new Date(v));

/**
 * The caller's item: the one they hold under a live lease, else the oldest open item nobody holds (no lease, or an
 * expired one) that they have not skipped, claimed in one statement. The inner select locks the row it picks and
 * skips rows another claim has locked, and the update checks the lease again, so two reviewers never get one item.
 */
export async function nextItem(db: Database, who: Reviewer, queueId: string): Promise<ReviewNext> {
  const queue = await queueFor(db, who, queueId);
  workable(queue);
  await fillQueue(db, queue, { staleAfterMs: NEXT_FILL_STALE_MS });
  const [held] = await db
    .select()
    .from(reviewItem)
    .where(
      and(
        eq(reviewItem.tenantId, queue.tenantId),
        eq(reviewItem.queueId, queue.id),
        eq(reviewItem.status, "open"),
        eq(reviewItem.claimedBy, who.userId),
        sql`${reviewItem.leaseUntil} > now()`,
      ),
    )
    .orderBy(reviewItem.createdAt, reviewItem.id)
    .limit(1);
  if (held) return { item: claimOf(held), open: await openCount(db, queue) };
  const free = sql`status = 'open' and (lease_until is null or lease_until <= now())
    and not (${who.userId}::uuid = any(skipped_by))`;
  let claimed: ClaimedRow | undefined;
  // A row the inner select saw free may be taken between its snapshot and the update's check: try again (bounded).
  for (let attempt = 0; attempt < 5 && !claimed; attempt++) {
    const rows = rowsOf<ClaimedRow>(
      await db.execute(sql`
        update review_item
        set claimed_by = ${who.userId}::uuid, lease_until = now() + make_interval(secs => ${queue.leaseSeconds})
        where id = (
          select id from review_item
          where tenant_id = ${queue.tenantId} and queue_id = ${queue.id} and ${free}
          order by created_at, id
          limit 1
          for update skip locked
        ) and ${free}
        returning id, turn_id, reason, lease_until, created_at`),
    );
    claimed = rows[0];
    if (claimed) break;
    // Nothing updated: either none is free (stop) or the picked row was taken meanwhile (look again).
    const [any] = rowsOf<{ id: string }>(
      await db.execute(sql`
        select id from review_item
        where tenant_id = ${queue.tenantId} and queue_id = ${queue.id} and ${free}
        limit 1`),
    );
    if (!any) break;
  }
  const item = claimed
    ? claimOf({
        id: claimed.id,
        turnId: claimed.turn_id,
        reason: claimed.reason,
        leaseUntil: asDate(claimed.lease_until),
        createdAt: asDate(claimed.created_at),
      })
    : null;
  return { item, open: await openCount(db, queue) };
}

/** The queue's item, locked for the change (404 for an item of another queue or tenant, or a malformed id). */
async function lockedItem(
  tx: Executor,
  queue: ReviewQueue,
  itemId: string,
): Promise<{ row: ReviewItem; live: boolean }> {
  if (!isUuid(itemId)) throw notFound("review item");
  const [found] = await tx
    .select({ row: reviewItem, live: sql<boolean>`coalesce(${reviewItem.leaseUntil} > now(), false)` })
    .from(reviewItem)
    .where(
      and(
        eq(reviewItem.tenantId, queue.tenantId),
        eq(reviewItem.queueId, queue.id),
        eq(reviewItem.id, itemId),
      ),
    )
    .for("update");
  if (!found) throw notFound("review item");
  return found;
}

/** 409 unless the caller holds the open item under a live lease (`live`: by the database's clock). */
function assertHeld({ row, live }: { row: ReviewItem; live: boolean }, userId: string) {
  if (row.status === "done")
    throw new AppError("conflict", "this item is already reviewed", { reason: REVIEW_ERROR_CODES.itemDone });
  if (row.claimedBy !== userId || !live)
    throw new AppError(
      "conflict",
      "your claim on this item has lapsed (its lease ran out or another reviewer has it): take the next item",
      { reason: REVIEW_ERROR_CODES.leaseLost },
    );
}

/**
 * Closes the caller's claimed item: each score goes on the item's turn as the reviewer's own `human` score,
 * validated by the tenant's config of its name (422 naming `scores.N.value`), and the item is marked done by them,
 * all in one transaction. Only the queue's form scores (its scoreNames, and thumbs) may be given.
 */
export async function completeItem(
  db: Database,
  who: Reviewer,
  queueId: string,
  itemId: string,
  input: ReviewDoneInput,
): Promise<ReviewDone> {
  const queue = await queueFor(db, who, queueId);
  const allowed = new Set([...queue.scoreNames, REVIEW_FEEDBACK_SCORE]);
  input.scores.forEach((s, i) => {
    if (!allowed.has(s.name))
      throw new AppError("validation_failed", `"${s.name}" is not one of this queue's scores`, {
        fields: {
          [`scores.${i}.name`]: [`this queue asks for ${[...allowed].map((n) => `"${n}"`).join(", ")}`],
        },
      });
  });
  return db.transaction(async (tx) => {
    const locked = await lockedItem(tx, queue, itemId);
    assertHeld(locked, who.userId);
    const { row } = locked;
    const scoreIds: string[] = [];
    for (const [i, s] of input.scores.entries()) {
      const comment = s.comment ?? input.comment;
      try {
        const put = await putScore(
          tx,
          { tenantId: queue.tenantId, userId: who.userId },
          { turnId: row.turnId, name: s.name, value: s.value, ...(comment ? { comment } : {}) },
          "human",
        );
        scoreIds.push(put.score.id);
      } catch (error) {
        // The scores server names the value; the reviewer's form has many, so name which one.
        if (error instanceof AppError && error.code === "validation_failed" && error.extra.fields)
          throw new AppError("validation_failed", error.message, {
            fields: Object.fromEntries(
              Object.entries(error.extra.fields).map(([k, v]) => [`scores.${i}.${k}`, v]),
            ),
          });
        throw error;
      }
    }
    const [done] = await tx
      .update(reviewItem)
      .set({ status: "done", doneBy: who.userId, doneAt: sql`now()`, leaseUntil: null })
      .where(and(eq(reviewItem.tenantId, queue.tenantId), eq(reviewItem.id, row.id)))
      .returning();
    return { item: itemView(done!), scoreIds };
  });
}

/** Lets the caller's claimed item go: it is free again for others and never offered to the caller again. */
export async function skipItem(
  db: Database,
  who: Reviewer,
  queueId: string,
  itemId: string,
): Promise<ReviewSkip> {
  const queue = await queueFor(db, who, queueId);
  return db.transaction(async (tx) => {
    const locked = await lockedItem(tx, queue, itemId);
    assertHeld(locked, who.userId);
    const { row } = locked;
    const [skipped] = await tx
      .update(reviewItem)
      .set({
        claimedBy: null,
        leaseUntil: null,
        skippedBy: sql`array_append(${reviewItem.skippedBy}, ${who.userId}::uuid)`,
      })
      .where(and(eq(reviewItem.tenantId, queue.tenantId), eq(reviewItem.id, row.id)))
      .returning();
    return { item: itemView(skipped!) };
  });
}

/**
 * "Add to dataset": the item's turn becomes an item of the dataset (the queue's, unless another is named; 422
 * naming datasetId when neither is), as the ledger's "Add to dataset" makes it. A dataset of another tenant is 404.
 */
export async function addItemToDataset(
  db: Database,
  who: Reviewer,
  queueId: string,
  itemId: string,
  datasetId: string | undefined,
): Promise<ReviewDatasetAdd> {
  const queue = await queueFor(db, who, queueId);
  if (!isUuid(itemId)) throw notFound("review item");
  const [row] = await db
    .select()
    .from(reviewItem)
    .where(
      and(
        eq(reviewItem.tenantId, queue.tenantId),
        eq(reviewItem.queueId, queue.id),
        eq(reviewItem.id, itemId),
      ),
    )
    .limit(1);
  if (!row) throw notFound("review item");
  const target = datasetId ?? queue.datasetId;
  if (!target)
    throw new AppError("validation_failed", "this queue has no dataset: name one", {
      fields: { datasetId: ["pick the dataset to add the turn to (the queue names none)"] },
    });
  // The queue gives its reviewers the item's turn, whoever's it was, so it is read as an admin reads it.
  const made = await itemFromTurn(db, queue.tenantId, row.turnId, { userId: who.userId, admin: true });
  const { ids } = await appendItems(db, queue.tenantId, target, [
    {
      input: made.input,
      ...(made.expected !== null ? { expected: made.expected } : {}),
      metadata: { ...made.metadata, reviewQueueId: queue.id, reviewItemId: row.id },
      sourceTurnId: row.turnId,
    },
  ]);
  return { datasetItemId: ids[0]!, datasetId: target };
}
