import "server-only";
import { and, asc, eq, inArray, isNull, lt, lte, or, sql } from "drizzle-orm";
import type { Executor } from "@/db";
import { type AlertChannelKind, alertChannel, alertDelivery, alertEvent, alertRule } from "@/db/schema";
import type { FiredAlert } from "./messages";

const ms = (n: number) => sql`${`${Math.max(0, Math.round(n))} milliseconds`}::interval`;

/** A claimed delivery with what sending it needs: its event (and rule) and its channel as they are now. */
export type ClaimedDelivery = {
  id: string;
  attempts: number;
  event: FiredAlert;
  channel: { id: string; kind: AlertChannelKind; config: unknown; enabled: boolean };
};

/**
 * Claims up to `limit` due deliveries under a lease, each for one sender only: `FOR UPDATE SKIP LOCKED` lets two
 * senders claim side by side without taking the same row, and the lease (plus the tries counted here) lets a
 * delivery whose sender died be claimed again once it lapses. `ids`: only these (a "send test" tries its own now).
 */
export async function claimDeliveries(
  db: Executor,
  opts: { limit: number; leaseMs: number; ids?: string[] },
): Promise<ClaimedDelivery[]> {
  if (opts.limit <= 0) return [];
  const due = db
    .select({ id: alertDelivery.id })
    .from(alertDelivery)
    .where(
      and(
        eq(alertDelivery.status, "pending"),
        opts.ids ? inArray(alertDelivery.id, opts.ids) : lte(alertDelivery.nextAttemptAt, sql`now()`),
        or(isNull(alertDelivery.leaseUntil), lt(alertDelivery.leaseUntil, sql`now()`)),
      ),
    )
    .orderBy(asc(alertDelivery.nextAttemptAt))
    .limit(opts.limit)
    .for("update", { skipLocked: true });
  const claimed = await db
    .update(alertDelivery)
    .set({ leaseUntil: sql`now() + ${ms(opts.leaseMs)}`, attempts: sql`${alertDelivery.attempts} + 1` })
    .where(inArray(alertDelivery.id, due))
    .returning({ id: alertDelivery.id, attempts: alertDelivery.attempts });
  if (!claimed.length) return [];
  const rows = await db
    .select({
      id: alertDelivery.id,
      event: alertEvent,
      rule: { id: alertRule.id, name: alertRule.name, kind: alertRule.kind },
      channel: {
        id: alertChannel.id,
        kind: alertChannel.kind,
        config: alertChannel.config,
        enabled: alertChannel.enabled,
      },
    })
    .from(alertDelivery)
    .innerJoin(alertEvent, eq(alertEvent.id, alertDelivery.eventId))
    .innerJoin(alertChannel, eq(alertChannel.id, alertDelivery.channelId))
    .leftJoin(alertRule, eq(alertRule.id, alertEvent.ruleId))
    .where(
      inArray(
        alertDelivery.id,
        claimed.map((c) => c.id),
      ),
    );
  const attempts = new Map(claimed.map((c) => [c.id, c.attempts]));
  return rows.map((row) => ({
    id: row.id,
    attempts: attempts.get(row.id) ?? 1,
    event: { ...row.event, rule: row.rule },
    channel: row.channel,
  }));
}

/** Lengthens the leases of the deliveries still being sent here. */
export async function renewLeases(db: Executor, ids: string[], leaseMs: number): Promise<void> {
  if (!ids.length) return;
  await db
    .update(alertDelivery)
    .set({ leaseUntil: sql`now() + ${ms(leaseMs)}` })
    .where(and(inArray(alertDelivery.id, ids), eq(alertDelivery.status, "pending")));
}

export async function markDelivered(db: Executor, id: string, status: number | null): Promise<void> {
  await db
    .update(alertDelivery)
    .set({
      status: "delivered",
      deliveredAt: sql`now()`,
      lastStatus: status,
      lastError: null,
      leaseUntil: null,
    })
    .where(and(eq(alertDelivery.id, id), eq(alertDelivery.status, "pending")));
}

/** The delivery is tried again after `delayMs` (another sender may claim it then). */
export async function scheduleRetry(
  db: Executor,
  id: string,
  failure: { status: number | null; error: string; delayMs: number },
): Promise<void> {
  await db
    .update(alertDelivery)
    .set({
      nextAttemptAt: sql`now() + ${ms(failure.delayMs)}`,
      leaseUntil: null,
      lastStatus: failure.status,
      lastError: failure.error,
    })
    .where(and(eq(alertDelivery.id, id), eq(alertDelivery.status, "pending")));
}

export async function markDead(
  db: Executor,
  id: string,
  failure: { status: number | null; error: string },
): Promise<void> {
  await db
    .update(alertDelivery)
    .set({ status: "dead", leaseUntil: null, lastStatus: failure.status, lastError: failure.error })
    .where(and(eq(alertDelivery.id, id), eq(alertDelivery.status, "pending")));
}
