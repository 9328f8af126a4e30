// A queue's progress and its reviewers' throughput (the queue page), and its items page by page (admins).
import "server-only";
import { and, asc, desc, eq, gte, sql } from "drizzle-orm";
import type { Database } from "@/db";
import { appUser, reviewItem } from "@/db/schema";
import type { ReviewItemPage, ReviewItemsQuery, ReviewQueueStats } from "@/features/reviews/contracts";
import { AppError } from "@/lib/core/errors/app-error";
import { isUuid } from "@/lib/core/schema/uuid";
import { itemView } from "./claims";
import { queueCounts, queueFor, type Reviewer } from "./queues";

const DAY_MS = 86_400_000;
/** The days of `donePerDay`. */
export const STATS_DAYS = 14;
/** At most this many reviewers are listed (those with most done in 7 days first). */
export const STATS_REVIEWERS_MAX = 50;

const utcDay = (d: Date) => d.toISOString().slice(0, 10);

/**
 * A queue's counts (open, claimed under a live lease, done, total), each reviewer's done items today (UTC) and in
 * the last 7 days, and the done items of each of the last 14 days (UTC, oldest first, empty days as 0).
 */
export async function queueStats(
  db: Database,
  who: Reviewer,
  queueId: string,
  now = new Date(),
): Promise<ReviewQueueStats> {
  const queue = await queueFor(db, who, queueId);
  const counts = (await queueCounts(db, queue.tenantId, [queue.id])).get(queue.id) ?? {
    open: 0,
    claimed: 0,
    done: 0,
  };
  const today = new Date(`${utcDay(now)}T00:00:00.000Z`);
  const weekAgo = new Date(now.getTime() - 7 * DAY_MS);
  const firstDay = new Date(today.getTime() - (STATS_DAYS - 1) * DAY_MS);
  const mine = and(
    eq(reviewItem.tenantId, queue.tenantId),
    eq(reviewItem.queueId, queue.id),
    eq(reviewItem.status, "done"),
  );
  const reviewers = await db
    .select({
      userId: reviewItem.doneBy,
      email: appUser.email,
      doneToday: sql<number>`count(*) filter (where ${reviewItem.doneAt} >= ${today.toISOString()}::timestamptz)::int`,
      done7d: sql<number>`count(*)::int`,
    })
    .from(reviewItem)
    .leftJoin(appUser, eq(appUser.id, reviewItem.doneBy))
    .where(and(mine, gte(reviewItem.doneAt, weekAgo)))
    .groupBy(reviewItem.doneBy, appUser.email)
    .orderBy(desc(sql`count(*)`), asc(appUser.email))
    .limit(STATS_REVIEWERS_MAX);
  const perDay = await db
    .select({
      day: sql<string>`to_char(${reviewItem.doneAt} at time zone 'UTC', 'YYYY-MM-DD')`,
      count: sql<number>`count(*)::int`,
    })
    .from(reviewItem)
    .where(and(mine, gte(reviewItem.doneAt, firstDay)))
    .groupBy(sql`1`);
  const byDay = new Map(perDay.map((d) => [d.day, Number(d.count)]));
  const donePerDay = Array.from({ length: STATS_DAYS }, (_, i) => {
    const day = utcDay(new Date(firstDay.getTime() + i * DAY_MS));
    return { day, count: byDay.get(day) ?? 0 };
  });
  return {
    ...counts,
    total: counts.open + counts.done,
    reviewers: reviewers
      .filter((r) => r.userId !== null)
      .map((r) => ({
        userId: r.userId!,
        // A reviewer whose account is gone keeps their count, without an address.
        email: r.email ?? "",
        doneToday: Number(r.doneToday),
        done7d: Number(r.done7d),
      })),
    donePerDay,
  };
}

const badCursor = () =>
  new AppError("validation_failed", "not a cursor from this list", {
    fields: { cursor: ["not a cursor from this list: start again without it"] },
  });

/**
 * A page's cursor: the last item's time to the microsecond (the database's precision, so no row repeats or goes
 * missing) and its id, as `<time>~<id>` (parsed without a regex).
 */
function parseCursor(cursor: string): { at: string; id: string } {
  const cut = cursor.indexOf("~");
  if (cut <= 0) throw badCursor();
  const at = cursor.slice(0, cut);
  const id = cursor.slice(cut + 1);
  if (at.length > 40 || Number.isNaN(Date.parse(at)) || !isUuid(id)) throw badCursor();
  return { at, id };
}

/**
 * The queue's items a page at a time (keyset): open ones oldest first (as `next` offers them), done ones most
 * recently done first.
 */
export async function queueItems(
  db: Database,
  who: Reviewer,
  queueId: string,
  query: ReviewItemsQuery,
): Promise<ReviewItemPage> {
  const queue = await queueFor(db, who, queueId);
  const after = query.cursor ? parseCursor(query.cursor) : null;
  const open = query.status === "open";
  const time = open ? reviewItem.createdAt : reviewItem.doneAt;
  const keyset = after
    ? open
      ? sql`(${reviewItem.createdAt}, ${reviewItem.id}) > (${after.at}::timestamptz, ${after.id}::uuid)`
      : sql`(${reviewItem.doneAt}, ${reviewItem.id}) < (${after.at}::timestamptz, ${after.id}::uuid)`
    : undefined;
  const rows = await db
    .select({
      row: reviewItem,
      at: sql<string>`to_char(${time} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`,
    })
    .from(reviewItem)
    .where(
      and(
        eq(reviewItem.tenantId, queue.tenantId),
        eq(reviewItem.queueId, queue.id),
        eq(reviewItem.status, query.status),
        keyset,
      ),
    )
    .orderBy(...(open ? [asc(time), asc(reviewItem.id)] : [desc(time), desc(reviewItem.id)]))
    .limit(query.limit + 1);
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    items: page.map((r) => itemView(r.row)),
    nextCursor: rows.length > query.limit && last ? `${last.at}~${last.row.id}` : null,
  };
}
