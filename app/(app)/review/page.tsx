import Link from "next/link";
import { forbidden } from "next/navigation";
import { CARD, PRIMARY } from "@/components/admin-kit/ui";
import { getDb } from "@/db";
import { reviewHref } from "@/features/reviews/client";
import { QueueProgress } from "@/features/reviews/components";
import type { ReviewQueueView } from "@/features/reviews/contracts";
import { listQueues, reviewerOf } from "@/features/reviews/server";
import { requireUser } from "@/lib/auth/page-guards";
import { AppError } from "@/lib/core/errors/app-error";
import { titleMetadata } from "@/lib/i18n/metadata";
import { getTranslator } from "@/lib/i18n/server";

export const generateMetadata = titleMetadata("nav.review");

/** The queues the caller may work (an admin: all; a reviewer: those open to reviewers), each with its way in. */
export default async function ReviewQueuesForReviewer() {
  const auth = await requireUser();
  let queues: ReviewQueueView[];
  try {
    queues = await listQueues(await getDb(), reviewerOf(auth));
  } catch (error) {
    if (error instanceof AppError && error.code === "forbidden") forbidden();
    throw error;
  }
  const t = await getTranslator();
  return (
    <div data-testid="review-queues" className="min-w-0 space-y-6">
      <header className="space-y-1">
        <h1 className="text-2xl font-bold">{t("rv.title")}</h1>
        {auth.tenant && (
          <p data-testid="page-scope" className="text-sm text-slate-500">
            {t("page.scope.tenant", { tenant: auth.tenant.name })}
          </p>
        )}
      </header>
      {queues.length ? (
        <ul className="min-w-0 space-y-2">
          {queues.map((q) => (
            <li key={q.id} data-testid="review-queue" className={`${CARD} min-w-0 space-y-2 p-3`}>
              <p className="font-medium break-words">{q.name}</p>
              {q.description && <p className="text-sm text-slate-600 dark:text-slate-300">{q.description}</p>}
              <QueueProgress counts={q.counts} testId="review-queue-progress" />
              <Link href={reviewHref(q.id)} className={`${PRIMARY} inline-block`}>
                {t("rv.start")}
              </Link>
            </li>
          ))}
        </ul>
      ) : (
        <p className="text-sm text-slate-500">{t("rv.queues.empty")}</p>
      )}
    </div>
  );
}
