import { forbidden, notFound, redirect } from "next/navigation";
import { getDb } from "@/db";
import { listDatasets } from "@/features/evals/server/datasets";
import { ReplayView } from "@/features/replay/components/replay-view";
import { reviewHref } from "@/features/reviews/client";
import { ReviewView } from "@/features/reviews/components";
import { fieldsOf } from "@/features/reviews/components/review-form-state";
import { reviewerOf } from "@/features/reviews/server";
import { type ReviewPage, reviewPage } from "@/features/reviews/server/review-page";
import { isTenantAdmin } from "@/lib/auth/guards";
import { requireUser } from "@/lib/auth/page-guards";
import { AppError } from "@/lib/core/errors/app-error";
import { titleMetadata } from "@/lib/i18n/metadata";
import { getTranslator } from "@/lib/i18n/server";

export const generateMetadata = titleMetadata("nav.review");

/**
 * One claimed item worked in the focused view: its turn's replay beside the queue's scoring form. An item that is
 * done, or that another reviewer holds, sends the caller back to the queue's entry (which claims their next).
 */
export default async function ReviewItemPage({
  params,
}: {
  params: Promise<{ queueId: string; itemId: string }>;
}) {
  const auth = await requireUser();
  const { queueId, itemId } = await params;
  let page: ReviewPage;
  let datasets: { id: string; name: string }[];
  try {
    const who = reviewerOf(auth);
    const db = await getDb();
    [page, datasets] = await Promise.all([
      reviewPage(db, who, queueId, itemId),
      listDatasets(db, who.tenantId).then((all) =>
        all.filter((d) => !d.archived).map((d) => ({ id: d.id, name: d.name })),
      ),
    ]);
  } catch (error) {
    if (error instanceof AppError && error.code === "not_found") notFound();
    if (error instanceof AppError && error.code === "forbidden") forbidden();
    throw error;
  }
  const { queue, item } = page;
  const heldByOther = item.claimedBy !== null && item.claimedBy !== auth.user.id;
  if (item.status === "done" || heldByOther || queue.archivedAt) redirect(reviewHref(queue.id));
  const t = await getTranslator();
  return (
    <ReviewView
      key={item.id}
      queue={{ id: queue.id, name: queue.name, datasetId: queue.datasetId }}
      item={item}
      open={queue.counts.open}
      fields={fieldsOf(queue.scoreNames, page.configs)}
      datasets={datasets}
      backHref={isTenantAdmin(auth) ? "/dev/admin/reviews" : "/review"}
      replay={
        page.replay ? (
          <ReplayView data={page.replay} superAdmin={false} embedded />
        ) : (
          <p data-testid="review-replay-missing" className="text-sm text-slate-500">
            {t("rv.view.turnGone")}
          </p>
        )
      }
    />
  );
}
