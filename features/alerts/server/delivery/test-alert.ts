import "server-only";
import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import type { Database } from "@/db";
import { type AlertChannel, alertDelivery } from "@/db/schema";
import { fireAlert } from "../fire";
import { type DeliverOptions, deliverClaimed } from "./deliver";
import { TEST_DEDUPE_PREFIX } from "./messages";
import { transportsFromEnv } from "./senders";
import { claimDeliveries } from "./store";

/** What a "send test" came to: delivered, or the failure the channel's admin should see. */
export type TestAlertResult =
  | { delivered: true; eventId: string; deliveryId: string; status: number | null }
  | { delivered: false; eventId: string; deliveryId: string | null; status: number | null; error: string };

/**
 * Fires a test alert (no rule, dedupe key `test:<uuid>`) to this one channel and tries its delivery now, not on
 * the worker's next poll, answering how it went. A test is tried once: a failure is dead at once (it is in the
 * delivery log with its error), never retried in the background. `channel` is the caller's, already checked to
 * be the tenant's (or, tenant null, the platform's).
 */
export async function sendTestAlert(
  db: Database,
  channel: Pick<AlertChannel, "id" | "tenantId" | "name">,
  options: Partial<DeliverOptions> = {},
): Promise<TestAlertResult> {
  const eventId = await fireAlert(db, {
    tenantId: channel.tenantId,
    ruleId: null,
    dedupeKey: `${TEST_DEDUPE_PREFIX}${randomUUID()}`,
    severity: "info",
    title: "Test alert from Tollgate",
    body: `This is a test of the alert channel "${channel.name}". If you can read it, alerts reach you here.`,
    details: { channelId: channel.id },
    channelIds: [channel.id],
  });
  // A fresh dedupe key always fires.
  if (!eventId) throw new Error("the test alert was not recorded");
  const [pending] = await db
    .select({ id: alertDelivery.id })
    .from(alertDelivery)
    .where(and(eq(alertDelivery.eventId, eventId), eq(alertDelivery.channelId, channel.id)));
  if (!pending)
    return {
      delivered: false,
      eventId,
      deliveryId: null,
      status: null,
      error: "the channel is disabled: enable it to send to it",
    };
  const [claimed] = await claimDeliveries(db, { limit: 1, leaseMs: 60_000, ids: [pending.id] });
  // The worker's sender took it first: its try is the answer.
  if (!claimed) return awaitOutcome(db, eventId, pending.id);
  const { send } = await deliverClaimed(db, claimed, {
    ...options,
    transports: options.transports ?? transportsFromEnv(),
  });
  return send.ok
    ? { delivered: true, eventId, deliveryId: pending.id, status: send.status }
    : { delivered: false, eventId, deliveryId: pending.id, status: send.status, error: send.error };
}

/** Reads the delivery until its one try has ended (a test is delivered or dead after it), for at most 20 s. */
async function awaitOutcome(db: Database, eventId: string, deliveryId: string): Promise<TestAlertResult> {
  const until = Date.now() + 20_000;
  for (;;) {
    const [row] = await db
      .select({
        status: alertDelivery.status,
        lastStatus: alertDelivery.lastStatus,
        lastError: alertDelivery.lastError,
      })
      .from(alertDelivery)
      .where(eq(alertDelivery.id, deliveryId));
    if (row?.status === "delivered") return { delivered: true, eventId, deliveryId, status: row.lastStatus };
    if (!row || row.status === "dead")
      return {
        delivered: false,
        eventId,
        deliveryId,
        status: row?.lastStatus ?? null,
        error: row?.lastError ?? "the channel was deleted",
      };
    if (Date.now() > until)
      return {
        delivered: false,
        eventId,
        deliveryId,
        status: null,
        error: "no outcome yet: the worker is still sending it",
      };
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
