// TEMPORARY delivery port: the alerts page and routes call the sending side (features/alerts/server/delivery/,
// built on another branch) through these two functions only. At the merge this file becomes a re-export of
// theirs (`export { listDeliveries, sendTestAlert } from "./delivery"`); until then `sendTestAlert` records the
// test alert and its pending delivery (nothing is sent), and `listDeliveries` is the real query.
import "server-only";
import { randomUUID } from "node:crypto";
import { and, desc, eq, isNull, type SQL } from "drizzle-orm";
import type { Executor } from "@/db";
import { type AlertDeliveryStatus, alertChannel, alertDelivery, alertEvent } from "@/db/schema";
import { AppError, notFound } from "@/lib/core/errors/app-error";
import { fireAlert } from "./fire";

export type SendTestOutcome = {
  deliveryId: string;
  status: "delivered" | "pending" | "dead";
  error?: string;
};

export type DeliveryRow = {
  id: string;
  eventTitle: string;
  severity: string;
  channelName: string;
  channelKind: string;
  status: string;
  attempts: number;
  lastError: string | null;
  lastStatus: number | null;
  createdAt: Date;
  deliveredAt: Date | null;
  nextAttemptAt: Date | null;
};

const ownedBy = (tenantId: string | null): SQL =>
  tenantId === null ? isNull(alertDelivery.tenantId) : eq(alertDelivery.tenantId, tenantId);

/** TEMPORARY: records a test alert to one channel of the owner and answers its (pending) delivery. */
export async function sendTestAlert(
  db: Executor,
  channelId: string,
  tenantId: string | null,
): Promise<SendTestOutcome> {
  const [channel] = await db
    .select()
    .from(alertChannel)
    .where(
      and(
        eq(alertChannel.id, channelId),
        tenantId === null ? isNull(alertChannel.tenantId) : eq(alertChannel.tenantId, tenantId),
      ),
    )
    .limit(1);
  if (!channel) throw notFound("alert channel");
  if (!channel.enabled) throw new AppError("conflict", "the channel is disabled: enable it to send a test");
  const eventId = await fireAlert(db, {
    tenantId,
    ruleId: null,
    dedupeKey: `test:${randomUUID()}`,
    severity: "info",
    title: `Test alert to ${channel.name}`,
    body: "A test from the Alerts page: this channel receives Tollgate's alerts.",
    channelIds: [channel.id],
  });
  const [delivery] = await db
    .select({ id: alertDelivery.id, status: alertDelivery.status })
    .from(alertDelivery)
    .where(eq(alertDelivery.eventId, eventId!))
    .limit(1);
  return { deliveryId: delivery!.id, status: delivery!.status };
}

/** The owner's most recent deliveries, newest first (alert_delivery_tenant_created_idx). */
export async function listDeliveries(
  db: Executor,
  tenantId: string | null,
  opts: { limit: number; status?: string },
): Promise<DeliveryRow[]> {
  return db
    .select({
      id: alertDelivery.id,
      eventTitle: alertEvent.title,
      severity: alertEvent.severity,
      channelName: alertChannel.name,
      channelKind: alertChannel.kind,
      status: alertDelivery.status,
      attempts: alertDelivery.attempts,
      lastError: alertDelivery.lastError,
      lastStatus: alertDelivery.lastStatus,
      createdAt: alertDelivery.createdAt,
      deliveredAt: alertDelivery.deliveredAt,
      nextAttemptAt: alertDelivery.nextAttemptAt,
    })
    .from(alertDelivery)
    .innerJoin(alertEvent, eq(alertEvent.id, alertDelivery.eventId))
    .innerJoin(alertChannel, eq(alertChannel.id, alertDelivery.channelId))
    .where(
      and(
        ownedBy(tenantId),
        opts.status ? eq(alertDelivery.status, opts.status as AlertDeliveryStatus) : undefined,
      ),
    )
    .orderBy(desc(alertDelivery.createdAt))
    .limit(opts.limit);
}
