// The worker's review-queue filler: every minute, the live queues least recently filled (a bounded number a pass),
// so queues fill whether or not anyone works them. Runs under the leader lock, in the app or in `npm run worker`.
import "server-only";
import type { Database } from "@/db";
import { log } from "@/lib/core/process/log";
import { periodicService } from "@/lib/core/process/periodic";
import { fillDueQueues } from "./fill";

export const REVIEW_FILL_EVERY_MS = 60_000;

export type ReviewFillDeps = { db: () => Promise<Database>; everyMs?: number };

export function reviewFillService(deps: ReviewFillDeps) {
  return periodicService("review queue fill", deps.everyMs ?? REVIEW_FILL_EVERY_MS, async () => {
    const result = await fillDueQueues(await deps.db());
    if (result.added) log.info(result, "review queues filled");
  });
}
