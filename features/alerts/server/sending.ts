// The sending side (features/alerts/server/delivery/) as the rules' routes and page use it: a test to one of the
// owner's channels, and the owner's delivery log, in the shapes the API answers.
import "server-only";
import { and, eq, isNull } from "drizzle-orm";
import type { Database, Executor } from "@/db";
import { alertChannel } from "@/db/schema";
import { AppError, notFound } from "@/lib/core/errors/app-error";
import { listDeliveries as deliveryLog, sendTestAlert as sendTest } from "./delivery";

export type SendTestOutcome = {
  deliveryId: string;
  status: "delivered" | "pending" | "dead";
  /** The HTTP status (or SMTP reply code) the channel answered, when it answered. */
  answered?: number | null;
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

/**
 * Sends a test alert to one of the owner's channels now (not on the worker's next poll) and answers how it went:
 * delivered, or dead with the channel's error (a test is tried once). 404 for another owner's channel, 409 for a
 * disabled one.
 */
export async function sendTestAlert(
  db: Database,
  channelId: string,
  tenantId: string | null,
): Promise<SendTestOutcome> {
  const [channel] = await db
    .select({
      id: alertChannel.id,
      tenantId: alertChannel.tenantId,
      name: alertChannel.name,
      enabled: alertChannel.enabled,
    })
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
  const result = await sendTest(db, channel);
  if (!result.deliveryId) throw new AppError("conflict", result.delivered ? "no delivery" : result.error);
  return result.delivered
    ? { deliveryId: result.deliveryId, status: "delivered", answered: result.status }
    : { deliveryId: result.deliveryId, status: "dead", answered: result.status, error: result.error };
}

/** The owner's most recent deliveries, newest first. */
export async function listDeliveries(
  db: Executor,
  tenantId: string | null,
  opts: { limit: number; status?: "pending" | "delivered" | "dead" },
): Promise<DeliveryRow[]> {
  const { rows } = await deliveryLog(db, tenantId, opts);
  return rows.map((d) => ({
    id: d.id,
    eventTitle: d.title,
    severity: d.severity,
    channelName: d.channelName,
    channelKind: d.channelKind,
    status: d.status,
    attempts: d.attempts,
    lastError: d.lastError,
    lastStatus: d.lastStatus,
    createdAt: d.createdAt,
    deliveredAt: d.deliveredAt,
    nextAttemptAt: d.nextAttemptAt,
  }));
}
