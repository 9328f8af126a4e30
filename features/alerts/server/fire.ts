import "server-only";
import { and, eq, inArray, isNull } from "drizzle-orm";
import type { Executor } from "@/db";
import { alertChannel, alertDelivery, alertEvent } from "@/db/schema";

/** An alert a rule raises: once per (rule, dedupeKey), whoever tries first (any replica, any evaluation). */
export type AlertFiring = {
  /** null: a platform rule. */
  tenantId: string | null;
  /** null: a "send test" (then dedupeKey should be unique, e.g. `test:<uuid>`). */
  ruleId: string | null;
  /** What makes this firing unique for its rule: the threshold and its period, a key and its expiry… */
  dedupeKey: string;
  severity: "info" | "warning" | "critical";
  title: string;
  body: string;
  details?: Record<string, unknown>;
  /** The channels to tell; only enabled channels of the same owner receive a delivery. */
  channelIds: string[];
};

/**
 * Records an alert and one pending delivery per channel in one transaction, or nothing when the rule already
 * fired for this dedupe key. Answers the event id when it fired now, null when it had fired before.
 * The deliveries are sent by the worker (features/alerts/server/delivery), so nothing fired is lost to a crash.
 */
export async function fireAlert(db: Executor, firing: AlertFiring): Promise<string | null> {
  return db.transaction(async (tx) => {
    const [event] = await tx
      .insert(alertEvent)
      .values({
        tenantId: firing.tenantId,
        ruleId: firing.ruleId,
        dedupeKey: firing.dedupeKey,
        severity: firing.severity,
        title: firing.title,
        body: firing.body,
        details: firing.details ?? {},
      })
      .onConflictDoNothing({ target: [alertEvent.ruleId, alertEvent.dedupeKey] })
      .returning({ id: alertEvent.id });
    if (!event) return null;
    if (firing.channelIds.length) {
      const channels = await tx
        .select({ id: alertChannel.id })
        .from(alertChannel)
        .where(
          and(
            inArray(alertChannel.id, firing.channelIds),
            eq(alertChannel.enabled, true),
            firing.tenantId === null
              ? isNull(alertChannel.tenantId)
              : eq(alertChannel.tenantId, firing.tenantId),
          ),
        );
      if (channels.length)
        await tx
          .insert(alertDelivery)
          .values(channels.map((c) => ({ tenantId: firing.tenantId, eventId: event.id, channelId: c.id })));
    }
    return event.id;
  });
}
