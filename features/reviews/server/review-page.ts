// What the focused review page reads for one item: the queue and the item (both in the reviewer's tenant and
// reach), the turn's replay and the score configs the form asks.
import "server-only";
import { and, eq } from "drizzle-orm";
import type { Database } from "@/db";
import { reviewItem } from "@/db/schema";
import type { ReplayResponse } from "@/features/replay/contracts";
import { turnReplay } from "@/features/replay/server";
import type { ReviewItemView, ReviewQueueView } from "@/features/reviews/contracts";
import type { ScoreConfigView } from "@/features/scores/contracts";
import { listScoreConfigs } from "@/features/scores/server";
import { AppError, notFound } from "@/lib/core/errors/app-error";
import { isUuid } from "@/lib/core/schema/uuid";
import { itemView } from "./claims";
import { getQueue, type Reviewer } from "./queues";

export type ReviewPage = {
  queue: ReviewQueueView;
  item: ReviewItemView;
  /** The turn replayed, or null when the ledger no longer holds it (archived, or deleted by retention). */
  replay: ReplayResponse | null;
  configs: ScoreConfigView[];
};

/**
 * One item of a queue the reviewer may reach, with what its page shows; another tenant's queue or item, or an item
 * of another queue, is 404 (the ids say nothing).
 */
export async function reviewPage(
  db: Database,
  who: Reviewer,
  queueId: string,
  itemId: string,
): Promise<ReviewPage> {
  const queue = await getQueue(db, who, queueId);
  if (!isUuid(itemId)) throw notFound("review item");
  const [row] = await db
    .select()
    .from(reviewItem)
    .where(
      and(eq(reviewItem.tenantId, who.tenantId), eq(reviewItem.queueId, queue.id), eq(reviewItem.id, itemId)),
    )
    .limit(1);
  if (!row) throw notFound("review item");
  const [replay, configs] = await Promise.all([
    turnReplay(db, { tenantId: who.tenantId, turnId: row.turnId }).catch((error: unknown) => {
      if (error instanceof AppError && error.code === "not_found") return null;
      throw error;
    }),
    listScoreConfigs(db, who.tenantId),
  ]);
  return {
    queue,
    item: itemView(row),
    replay,
    configs,
  };
}
