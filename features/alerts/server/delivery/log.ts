import "server-only";
import { and, desc, eq, isNull, lt, or, type SQL, sql } from "drizzle-orm";
import type { Executor } from "@/db";
import { type AlertDeliveryStatus, alertChannel, alertDelivery, alertEvent } from "@/db/schema";

/** One row of the Alerts page's delivery log. */
export type DeliveryLogRow = {
  id: string;
  tenantId: string | null;
  eventId: string;
  title: string;
  severity: "info" | "warning" | "critical";
  ruleId: string | null;
  firedAt: Date;
  channelId: string;
  channelName: string;
  channelKind: "webhook" | "slack" | "email";
  status: AlertDeliveryStatus;
  attempts: number;
  lastError: string | null;
  lastStatus: number | null;
  nextAttemptAt: Date;
  deliveredAt: Date | null;
  createdAt: Date;
};

export type DeliveryLogQuery = {
  /** 1 to 200; default 50. */
  limit?: number;
  /** The previous page's `nextCursor`. */
  cursor?: string;
  status?: AlertDeliveryStatus;
};

/**
 * A page of deliveries, newest first, with their event and channel: a tenant's own (`tenantId`), or with null the
 * platform's (the super admin's rules and channels), never another owner's. `nextCursor` is null on the last page.
 */
export async function listDeliveries(
  db: Executor,
  tenantId: string | null,
  query: DeliveryLogQuery = {},
): Promise<{ rows: DeliveryLogRow[]; nextCursor: string | null }> {
  const limit = Math.min(200, Math.max(1, query.limit ?? 50));
  const where: (SQL | undefined)[] = [
    tenantId === null ? isNull(alertDelivery.tenantId) : eq(alertDelivery.tenantId, tenantId),
  ];
  if (query.status) where.push(eq(alertDelivery.status, query.status));
  const after = query.cursor ? parseCursor(query.cursor) : null;
  if (after)
    where.push(
      or(
        lt(alertDelivery.createdAt, sql`${after.at}::timestamptz`),
        and(eq(alertDelivery.createdAt, sql`${after.at}::timestamptz`), lt(alertDelivery.id, after.id)),
      ),
    );
  const rows = await db
    .select({
      id: alertDelivery.id,
      tenantId: alertDelivery.tenantId,
      eventId: alertEvent.id,
      title: alertEvent.title,
      severity: alertEvent.severity,
      ruleId: alertEvent.ruleId,
      firedAt: alertEvent.firedAt,
      channelId: alertChannel.id,
      channelName: alertChannel.name,
      channelKind: alertChannel.kind,
      status: alertDelivery.status,
      attempts: alertDelivery.attempts,
      lastError: alertDelivery.lastError,
      lastStatus: alertDelivery.lastStatus,
      nextAttemptAt: alertDelivery.nextAttemptAt,
      deliveredAt: alertDelivery.deliveredAt,
      createdAt: alertDelivery.createdAt,
      // The cursor keeps PostgreSQL's microseconds, which a Date would round away.
      at: sql<string>`to_char(${alertDelivery.createdAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`,
    })
    .from(alertDelivery)
    .innerJoin(alertEvent, eq(alertEvent.id, alertDelivery.eventId))
    .innerJoin(alertChannel, eq(alertChannel.id, alertDelivery.channelId))
    .where(and(...where))
    .orderBy(desc(alertDelivery.createdAt), desc(alertDelivery.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    rows: page.map(({ at: _, ...row }) => row),
    nextCursor: rows.length > limit && last ? formatCursor(last.at, last.id) : null,
  };
}

function formatCursor(at: string, id: string): string {
  return Buffer.from(`${at}|${id}`).toString("base64url");
}

/** A cursor that is not one of ours starts from the top rather than failing the page. */
function parseCursor(cursor: string): { at: string; id: string } | null {
  const [at, id] = Buffer.from(cursor, "base64url").toString("utf8").split("|");
  if (!at || !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/.test(at)) return null;
  if (!id || !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return null;
  return { at, id };
}
