import { forbidden, notFound } from "next/navigation";
import { getDb } from "@/db";
import { ReviewStart } from "@/features/reviews/components";
import type { ReviewQueueView } from "@/features/reviews/contracts";
import { getQueue, reviewerOf } from "@/features/reviews/server";
import { isTenantAdmin } from "@/lib/auth/guards";
import { requireUser } from "@/lib/auth/page-guards";
import { AppError } from "@/lib/core/errors/app-error";
import { titleMetadata } from "@/lib/i18n/metadata";

export const generateMetadata = titleMetadata("nav.review");

/** A queue's review entry, for its reviewers: claims the caller's next item and opens it, or says none is left. */
export default async function ReviewQueueEntry({ params }: { params: Promise<{ queueId: string }> }) {
  const auth = await requireUser();
  const { queueId } = await params;
  let queue: ReviewQueueView;
  try {
    queue = await getQueue(await getDb(), reviewerOf(auth), queueId);
  } catch (error) {
    if (error instanceof AppError && error.code === "not_found") notFound();
    if (error instanceof AppError && error.code === "forbidden") forbidden();
    throw error;
  }
  return (
    <ReviewStart
      key={queue.id}
      queue={{ id: queue.id, name: queue.name, datasetId: queue.datasetId }}
      open={queue.counts.open}
      backHref={isTenantAdmin(auth) ? "/dev/admin/reviews" : "/review"}
    />
  );
}
