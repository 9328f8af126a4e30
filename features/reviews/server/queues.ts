// A tenant's review queues: who may reach them, and their definition (listed with counts, created, changed and
// archived by the tenant's admins, each change logged).
import "server-only";
import { and, asc, eq, inArray, isNull, sql } from "drizzle-orm";
import type { Database, Executor } from "@/db";
import { sqlState } from "@/db/client";
import { type ReviewQueue, reviewItem, reviewQueue, scoreConfig } from "@/db/schema";
import { datasetRow } from "@/features/evals/server";
import {
  REVIEW_FEEDBACK_SCORE,
  type ReviewQueueCounts,
  type ReviewQueueInput,
  type ReviewQueuePatch,
  type ReviewQueueView,
  type ReviewRule,
} from "@/features/reviews/contracts";
import { activeTenantOrThrow, isTenantAdmin } from "@/lib/auth/access";
import type { UserContext } from "@/lib/auth/users";
import { type Actor, recordChange } from "@/lib/changes/changes";
import { AppError, forbidden, notFound } from "@/lib/core/errors/app-error";
import { isUuid } from "@/lib/core/schema/uuid";

/** Who is asking, in the active tenant: an admin works (and manages) every queue; a reviewer the reviewers' ones. */
export type Reviewer = { tenantId: string; userId: string; admin: boolean };

/**
 * The caller as a reviewer of the active tenant: a tenant admin, or a member an admin gave the reviewer right;
 * anyone else is refused (403: the queues are not theirs to work).
 */
export function reviewerOf(auth: UserContext): Reviewer {
  const tenant = activeTenantOrThrow(auth);
  const admin = isTenantAdmin(auth);
  if (!admin && !tenant.reviewer)
    throw forbidden("review queues are for tenant admins and members with the reviewer right");
  return { tenantId: tenant.id, userId: auth.user.id, admin };
}

/** At most this many queues a tenant keeps (archived ones included). */
export const REVIEW_QUEUES_MAX = 100;

const invalid = (field: string, message: string) =>
  new AppError("validation_failed", message, { fields: { [field]: [message] } });

/**
 * A queue of the reviewer's tenant they may reach: any for an admin; for a reviewer a live queue open to reviewers.
 * Anything else (another tenant's, a malformed id, an admins' queue for a reviewer) is 404: the id says nothing.
 */
export async function queueFor(db: Executor, who: Reviewer, id: string): Promise<ReviewQueue> {
  if (!isUuid(id)) throw notFound("review queue");
  const [row] = await db
    .select()
    .from(reviewQueue)
    .where(and(eq(reviewQueue.tenantId, who.tenantId), eq(reviewQueue.id, id)))
    .limit(1);
  if (!row) throw notFound("review queue");
  if (!who.admin && (row.reviewers !== "reviewers" || row.archivedAt)) throw notFound("review queue");
  return row;
}

const countsSql = {
  open: sql<number>`count(*) filter (where ${reviewItem.status} = 'open')::int`,
  claimed: sql<number>`count(*) filter (where ${reviewItem.status} = 'open' and ${reviewItem.leaseUntil} > now())::int`,
  done: sql<number>`count(*) filter (where ${reviewItem.status} = 'done')::int`,
};

/** Open, claimed (open under a live lease) and done items of the tenant's queues, by queue. */
export async function queueCounts(
  db: Executor,
  tenantId: string,
  queueIds: string[],
): Promise<Map<string, ReviewQueueCounts>> {
  if (!queueIds.length) return new Map();
  const rows = await db
    .select({ queueId: reviewItem.queueId, ...countsSql })
    .from(reviewItem)
    .where(and(eq(reviewItem.tenantId, tenantId), inArray(reviewItem.queueId, queueIds)))
    .groupBy(reviewItem.queueId);
  return new Map(
    rows.map((r) => [r.queueId, { open: Number(r.open), claimed: Number(r.claimed), done: Number(r.done) }]),
  );
}

export const queueView = (q: ReviewQueue, counts?: ReviewQueueCounts): ReviewQueueView => ({
  id: q.id,
  name: q.name,
  description: q.description,
  rules: q.rules as ReviewRule[],
  reviewers: q.reviewers,
  scoreNames: q.scoreNames,
  datasetId: q.datasetId,
  leaseSeconds: q.leaseSeconds,
  filledUntil: q.filledUntil?.toISOString() ?? null,
  archivedAt: q.archivedAt?.toISOString() ?? null,
  createdAt: q.createdAt.toISOString(),
  updatedAt: q.updatedAt.toISOString(),
  counts: counts ?? { open: 0, claimed: 0, done: 0 },
});

/** The live queues the reviewer may work, by name, with their counts: all for an admin, reviewers' for a reviewer. */
export async function listQueues(db: Database, who: Reviewer): Promise<ReviewQueueView[]> {
  const rows = await db
    .select()
    .from(reviewQueue)
    .where(
      and(
        eq(reviewQueue.tenantId, who.tenantId),
        isNull(reviewQueue.archivedAt),
        who.admin ? undefined : eq(reviewQueue.reviewers, "reviewers"),
      ),
    )
    .orderBy(asc(reviewQueue.name))
    .limit(REVIEW_QUEUES_MAX);
  const counts = await queueCounts(
    db,
    who.tenantId,
    rows.map((r) => r.id),
  );
  return rows.map((r) => queueView(r, counts.get(r.id)));
}

/** One queue the reviewer may reach, with its counts (404 otherwise). */
export async function getQueue(db: Database, who: Reviewer, id: string): Promise<ReviewQueueView> {
  const row = await queueFor(db, who, id);
  return queueView(row, (await queueCounts(db, who.tenantId, [row.id])).get(row.id));
}

/** 422 naming scoreNames unless each is a live score config of the tenant or the drawer's thumbs. */
async function checkScoreNames(db: Executor, tenantId: string, names: string[]) {
  const wanted = names.filter((n) => n !== REVIEW_FEEDBACK_SCORE);
  if (!wanted.length) return;
  const found = await db
    .select({ name: scoreConfig.name })
    .from(scoreConfig)
    .where(
      and(
        eq(scoreConfig.tenantId, tenantId),
        inArray(scoreConfig.name, wanted),
        isNull(scoreConfig.archivedAt),
      ),
    );
  const known = new Set(found.map((f) => f.name));
  const missing = wanted.filter((n) => !known.has(n));
  if (missing.length)
    throw invalid(
      "scoreNames",
      `no live score config named ${missing.map((n) => `"${n}"`).join(", ")}: create it on the scores page first (or use "${REVIEW_FEEDBACK_SCORE}")`,
    );
}

/** 422 naming datasetId unless it is a live dataset of the tenant. */
async function checkDataset(db: Database, tenantId: string, datasetId: string | null | undefined) {
  if (!datasetId) return;
  const dataset = await datasetRow(db, tenantId, datasetId);
  if (!dataset) throw invalid("datasetId", "no such dataset in this tenant");
  if (dataset.archivedAt) throw invalid("datasetId", `the dataset "${dataset.name}" is archived`);
}

const nameTaken = (name: string) =>
  new AppError("conflict", `a review queue named "${name}" already exists`, {
    fields: { name: [`"${name}" is taken: pick another name`] },
  });

const logged = (q: ReviewQueue) => ({
  name: q.name,
  description: q.description,
  rules: q.rules,
  reviewers: q.reviewers,
  scoreNames: q.scoreNames,
  datasetId: q.datasetId,
  leaseSeconds: q.leaseSeconds,
  archivedAt: q.archivedAt,
});

/** Creates a queue (logged); 409 naming name when the tenant has one of that name (archived included). */
export async function createQueue(
  db: Database,
  tenantId: string,
  input: ReviewQueueInput,
  actor: Actor,
): Promise<ReviewQueueView> {
  await checkScoreNames(db, tenantId, input.scoreNames);
  await checkDataset(db, tenantId, input.datasetId);
  return db.transaction(async (tx) => {
    const [count] = await tx
      .select({ n: sql<number>`count(*)::int` })
      .from(reviewQueue)
      .where(eq(reviewQueue.tenantId, tenantId));
    if (Number(count?.n ?? 0) >= REVIEW_QUEUES_MAX)
      throw new AppError("conflict", `a tenant keeps at most ${REVIEW_QUEUES_MAX} review queues`);
    const [row] = await tx
      .insert(reviewQueue)
      .values({
        tenantId,
        name: input.name,
        description: input.description || null,
        rules: input.rules,
        reviewers: input.reviewers,
        scoreNames: input.scoreNames,
        datasetId: input.datasetId ?? null,
        leaseSeconds: input.leaseSeconds,
        createdBy: actor.id,
      })
      .onConflictDoNothing()
      .returning();
    if (!row) throw nameTaken(input.name);
    await recordChange(tx, actor, {
      tenantId,
      action: "review_queue.created",
      objectType: "review_queue",
      objectId: row.id,
      before: null,
      after: logged(row),
    });
    return queueView(row);
  });
}

/** Changes a queue (logged); each field given replaces what was there. Items already queued stay. */
export async function updateQueue(
  db: Database,
  who: Reviewer,
  id: string,
  patch: ReviewQueuePatch,
  actor: Actor,
): Promise<ReviewQueueView> {
  if (patch.scoreNames) await checkScoreNames(db, who.tenantId, patch.scoreNames);
  await checkDataset(db, who.tenantId, patch.datasetId);
  const row = await db
    .transaction(async (tx) => {
      const before = await queueFor(tx, who, id);
      if (patch.name !== undefined && patch.name !== before.name) {
        const [taken] = await tx
          .select({ id: reviewQueue.id })
          .from(reviewQueue)
          .where(and(eq(reviewQueue.tenantId, who.tenantId), eq(reviewQueue.name, patch.name)))
          .limit(1);
        if (taken) throw nameTaken(patch.name);
      }
      const [after] = await tx
        .update(reviewQueue)
        .set({
          ...(patch.name !== undefined ? { name: patch.name } : {}),
          ...(patch.description !== undefined ? { description: patch.description || null } : {}),
          ...(patch.rules !== undefined ? { rules: patch.rules } : {}),
          ...(patch.reviewers !== undefined ? { reviewers: patch.reviewers } : {}),
          ...(patch.scoreNames !== undefined ? { scoreNames: patch.scoreNames } : {}),
          ...(patch.datasetId !== undefined ? { datasetId: patch.datasetId } : {}),
          ...(patch.leaseSeconds !== undefined ? { leaseSeconds: patch.leaseSeconds } : {}),
          updatedAt: new Date(),
        })
        .where(and(eq(reviewQueue.tenantId, who.tenantId), eq(reviewQueue.id, before.id)))
        .returning();
      await recordChange(tx, actor, {
        tenantId: who.tenantId,
        action: "review_queue.updated",
        objectType: "review_queue",
        objectId: before.id,
        before: logged(before),
        after: logged(after!),
      });
      return after!;
    })
    // Two renames to one name at once: the unique index decides, and the loser hears it as a taken name.
    .catch((error: unknown) => {
      if (sqlState(error) === "23505" && patch.name) throw nameTaken(patch.name);
      throw error;
    });
  return queueView(row, (await queueCounts(db, who.tenantId, [row.id])).get(row.id));
}

/** Archives a queue (logged): it fills no more and leaves the lists; its items stay. Archiving again changes nothing. */
export async function archiveQueue(
  db: Database,
  who: Reviewer,
  id: string,
  actor: Actor,
): Promise<ReviewQueueView> {
  const row = await db.transaction(async (tx) => {
    const before = await queueFor(tx, who, id);
    if (before.archivedAt) return before;
    const [after] = await tx
      .update(reviewQueue)
      .set({ archivedAt: new Date(), updatedAt: new Date() })
      .where(and(eq(reviewQueue.tenantId, who.tenantId), eq(reviewQueue.id, before.id)))
      .returning();
    await recordChange(tx, actor, {
      tenantId: who.tenantId,
      action: "review_queue.archived",
      objectType: "review_queue",
      objectId: before.id,
      before: logged(before),
      after: logged(after!),
    });
    return after!;
  });
  return queueView(row, (await queueCounts(db, who.tenantId, [row.id])).get(row.id));
}
