// A queue's filler: the tenant's turns and scores since the queue's watermark (less a look-back, since the ledger's
// batched recorder writes rows late) that match any of its rules become open review items, each turn once.
import "server-only";
import type { SQL } from "drizzle-orm";
import { and, asc, eq, isNull, sql } from "drizzle-orm";
import type { Database } from "@/db";
import { rowsOf } from "@/db/client";
import { type ReviewQueue, reviewItem, reviewQueue } from "@/db/schema";
import type { ReviewRule } from "@/features/reviews/contracts";
import { FEEDBACK_SCORE } from "@/features/scores/contracts";

/** Rows the ledger's batched recorder may still be writing: each fill looks this far behind its watermark. */
export const FILL_LOOK_BACK_MS = 5 * 60_000;
/** A queue's first fill (and any fill after a long pause) reaches this far back, no further. */
export const FILL_FIRST_WINDOW_MS = 7 * 24 * 3_600_000;
/** At most this many new items per fill; a fill that reaches it keeps its watermark, so the next takes the rest. */
export const FILL_MAX_ITEMS = 1_000;

/** What a guardrail verdict says: "passed" (no rule matched) is not a hit; logged, warned, redacted, blocked are. */
export const GUARDRAIL_HITS = ["logged", "warned", "redacted", "blocked"] as const;
/** The ledger statuses the `failed` rule takes (db/schema/turns.ts TURN_STATUSES). */
export const FAILED_STATUSES = ["failed", "interrupted"] as const;

/**
 * A turn's sample bucket, 0 to 9,999: the last 8 hex digits of its id (the random tail of a UUIDv7) mod 10,000. A
 * `sample` rule of p % takes the turns whose bucket is below p × 100, so filling again never samples again.
 */
export function sampleBucket(turnId: string): number {
  return Number.parseInt(turnId.replaceAll("-", "").slice(-8), 16) % 10_000;
}
const bucketSql = sql`(('x' || lpad(right(replace(t.id::text, '-', ''), 8), 16, '0'))::bit(64)::bigint % 10000)`;

type Window = { tenantId: string; queueId: string; from: string; to: string; budget: number };

const notQueued = (w: Window, turn: SQL) =>
  sql`not exists (select 1 from ${reviewItem} r where r.queue_id = ${w.queueId} and r.turn_id = ${turn})`;

/** How long before the window a failed turn may have started: it is judged by when it ended (start + latency). */
export const FAILED_REACH_MS = 60 * 60_000;

/**
 * Turns of the window matching `condition` (started_at always bounded: the ledger is partitioned by it). `byEnd`:
 * a turn that started up to FAILED_REACH_MS before the window counts when it ended inside it.
 */
const turnsWhere = (w: Window, reason: string, ord: number, condition: SQL, byEnd = false) => {
  const started = byEnd
    ? sql`t.started_at >= ${w.from}::timestamptz - make_interval(secs => ${FAILED_REACH_MS / 1000})
      and t.started_at + coalesce(t.latency_ms, 0) * interval '1 millisecond' >= ${w.from}::timestamptz`
    : sql`t.started_at >= ${w.from}::timestamptz`;
  return sql`(
  select t.id as turn_id, ${reason}::text as reason, t.started_at as at, ${ord}::int as ord
  from sys_agent_turn t
  where t.tenant_id = ${w.tenantId} and ${started} and t.started_at <= ${w.to}::timestamptz
    and ${condition} and ${notQueued(w, sql`t.id`)}
  order by t.started_at limit ${w.budget})`;
};

/** Turns with a score written (or changed) in the window matching `condition`: judged by the score's time. */
const scoredWhere = (w: Window, reason: string, ord: number, condition: SQL) => sql`(
  select s.turn_id as turn_id, ${reason}::text as reason, s.updated_at as at, ${ord}::int as ord
  from score s
  where s.tenant_id = ${w.tenantId} and s.turn_id is not null
    and s.updated_at >= ${w.from}::timestamptz and s.updated_at <= ${w.to}::timestamptz
    and ${condition} and ${notQueued(w, sql`s.turn_id`)}
  order by s.updated_at limit ${w.budget})`;

const list = (values: readonly string[]) =>
  sql.join(
    values.map((v) => sql`${v}`),
    sql`, `,
  );

/** The SQL of one rule's candidates (its order breaks ties: a turn two rules match gets the first one's reason). */
export function ruleCandidates(w: Window, rule: ReviewRule, ord: number): SQL {
  switch (rule.type) {
    case "failed":
      return turnsWhere(w, rule.type, ord, sql`t.status in (${list(FAILED_STATUSES)})`, true);
    case "guardrail":
      return turnsWhere(w, rule.type, ord, sql`t.guardrail in (${list(GUARDRAIL_HITS)})`);
    case "sample": {
      const conditions = [sql`${bucketSql} < ${rule.percent * 100}::float8`];
      if (rule.source) conditions.push(sql`t.source = ${rule.source}`);
      if (rule.alias) conditions.push(sql`t.requested_model = ${rule.alias}`);
      return turnsWhere(w, rule.type, ord, sql.join(conditions, sql` and `));
    }
    case "thumbs_down":
      return scoredWhere(
        w,
        rule.type,
        ord,
        sql`s.name = ${FEEDBACK_SCORE} and s.source = 'human' and s.type = 'boolean' and s.value = 0`,
      );
    case "score_below":
      return scoredWhere(
        w,
        rule.type,
        ord,
        sql`s.name = ${rule.name} and s.value is not null and s.value < ${rule.threshold}::float8`,
      );
  }
}

export type FillResult = { added: number; complete: boolean };

/**
 * Fills one queue: the turns its rules match since its watermark (less the look-back; the first fill: the last 7
 * days), at most FILL_MAX_ITEMS new items, each turn once (a turn already in the queue is never added again, done
 * or not). The queue's row is locked for the fill, so two fills of one queue never run at once: a fill that finds it
 * locked adds nothing. `staleAfterMs`: fill only when the watermark is older than that (`next` keeps queues fresh).
 */
export async function fillQueue(
  db: Database,
  queue: Pick<ReviewQueue, "id" | "tenantId">,
  options: { staleAfterMs?: number; now?: Date } = {},
): Promise<FillResult> {
  return db.transaction(async (tx) => {
    const [locked] = await tx
      .select()
      .from(reviewQueue)
      .where(
        and(
          eq(reviewQueue.tenantId, queue.tenantId),
          eq(reviewQueue.id, queue.id),
          isNull(reviewQueue.archivedAt),
        ),
      )
      .for("update", { skipLocked: true });
    if (!locked) return { added: 0, complete: true };
    const now = options.now ?? new Date();
    if (
      options.staleAfterMs !== undefined &&
      locked.filledUntil &&
      now.getTime() - locked.filledUntil.getTime() < options.staleAfterMs
    )
      return { added: 0, complete: true };
    const earliest = now.getTime() - FILL_FIRST_WINDOW_MS;
    const from = Math.max(
      earliest,
      locked.filledUntil ? locked.filledUntil.getTime() - FILL_LOOK_BACK_MS : earliest,
    );
    const window: Window = {
      tenantId: locked.tenantId,
      queueId: locked.id,
      from: new Date(from).toISOString(),
      to: now.toISOString(),
      budget: FILL_MAX_ITEMS,
    };
    const rules = locked.rules.slice(0, 10);
    let added = 0;
    if (rules.length) {
      const branches = sql.join(
        rules.map((rule, i) => ruleCandidates(window, rule as ReviewRule, i)),
        sql` union all `,
      );
      // `fullest`: the most candidates one rule gave; a rule that gave its whole budget may have more.
      const found = rowsOf<{ turn_id: string; reason: string; fullest: number }>(
        await tx.execute(sql`
          with c as (${branches}),
          d as (select distinct on (turn_id) turn_id, reason, at from c order by turn_id, ord, at)
          select turn_id, reason, (select max(k) from (select count(*)::int as k from c group by ord) x) as fullest
          from d order by at, turn_id limit ${FILL_MAX_ITEMS}`),
      );
      // Ids are made here (UUIDv7, in this order), so items of one fill are offered oldest turn first.
      if (found.length) {
        const inserted = await tx
          .insert(reviewItem)
          .values(
            found.map((f) => ({
              tenantId: locked.tenantId,
              queueId: locked.id,
              turnId: f.turn_id,
              reason: f.reason,
            })),
          )
          .onConflictDoNothing({ target: [reviewItem.queueId, reviewItem.turnId] })
          .returning({ id: reviewItem.id });
        added = inserted.length;
      }
      if (found.length && Number(found[0]!.fullest) >= FILL_MAX_ITEMS) return { added, complete: false };
    }
    await tx
      .update(reviewQueue)
      // The watermark is the filler's, not an edit: updated_at stays.
      .set({ filledUntil: now, updatedAt: sql`${reviewQueue.updatedAt}` })
      .where(and(eq(reviewQueue.tenantId, locked.tenantId), eq(reviewQueue.id, locked.id)));
    return { added, complete: true };
  });
}

/** At most this many queues one worker pass fills (those waiting longest first). */
export const FILL_QUEUES_PER_PASS = 50;

/** One worker pass: the live queues of every tenant, least recently filled first, each filled once. */
export async function fillDueQueues(
  db: Database,
  now = new Date(),
): Promise<{ queues: number; added: number }> {
  const due = await db
    .select({ id: reviewQueue.id, tenantId: reviewQueue.tenantId })
    .from(reviewQueue)
    .where(isNull(reviewQueue.archivedAt))
    .orderBy(sql`${reviewQueue.filledUntil} asc nulls first`, asc(reviewQueue.id))
    .limit(FILL_QUEUES_PER_PASS);
  let added = 0;
  for (const queue of due) added += (await fillQueue(db, queue, { now })).added;
  return { queues: due.length, added };
}
