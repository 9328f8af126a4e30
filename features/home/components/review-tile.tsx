import { formatCount } from "@/lib/core/format/number";
import type { Locale, Translate } from "@/lib/i18n/messages";
import { REVIEW_PAGE, reviewQueue } from "./links";
import { LinkRow, Tile } from "./tile";

/** A queue the viewer may review, with its open items (what is left for someone to take). */
export type HomeReviewQueue = { id: string; name: string; open: number };

/** Open review items across the queues the viewer may work, each queue a link into its review view. */
export function ReviewItemsTile({
  queues,
  t,
  locale,
}: {
  queues: HomeReviewQueue[];
  t: Translate;
  locale: Locale;
}) {
  const open = queues.reduce((sum, q) => sum + q.open, 0);
  const waiting = queues.filter((q) => q.open > 0);
  return (
    <Tile testId="home-reviews" title={t("rv.home.title")} href={REVIEW_PAGE} linkLabel={t("rv.home.link")}>
      <p data-testid="home-reviews-count" className="text-2xl font-semibold tabular-nums">
        {formatCount(open, { locale })}
      </p>
      {waiting.length ? (
        <ol className="mt-2 space-y-0.5">
          {waiting.map((q) => (
            <LinkRow
              key={q.id}
              testId="home-review-queue"
              href={reviewQueue(q.id)}
              name={q.name}
              figure={t("rv.home.openCount", { n: formatCount(q.open, { locale }) })}
            />
          ))}
        </ol>
      ) : (
        <p className="mt-1 text-sm text-slate-500">{t("rv.home.none")}</p>
      )}
    </Tile>
  );
}
