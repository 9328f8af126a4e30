// A clock schedule's answer sent to an alert channel (its target): an alert event of its own kind (no rule,
// dedupe key `schedule:<run id>`) with one pending delivery, so it goes out through the same durable rows,
// retries, dead-lettering and signatures as every alert, and shows in the channel's delivery log.
import "server-only";
import { and, eq } from "drizzle-orm";
import type { Executor } from "@/db";
import { alertDelivery } from "@/db/schema";
import type { ScheduleResult } from "@/lib/agent/schedule-targets";
import { SCHEDULE_DEDUPE_PREFIX } from "./delivery/messages";
import { fireAlert } from "./fire";

// A title fits Slack's header; the answer is cut where a Slack section would cut it anyway.
const TITLE_MAX = 120;
const ANSWER_MAX = 3_000;

const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

/**
 * Records the answer and its pending delivery to the channel in one transaction (the worker's sender sends it).
 * Throws when no delivery could be written: the channel was deleted or disabled since the run began.
 */
export async function queueScheduleResult(db: Executor, result: ScheduleResult): Promise<string> {
  const eventId = await fireAlert(db, {
    tenantId: result.tenantId,
    ruleId: null,
    dedupeKey: `${SCHEDULE_DEDUPE_PREFIX}${result.runId}`,
    severity: "info",
    title: clip(`Scheduled: ${result.message.replace(/\s+/g, " ").trim()}`, TITLE_MAX),
    body: clip(result.answer || "(the turn gave no text answer)", ANSWER_MAX),
    details: {
      scheduleId: result.scheduleId,
      runId: result.runId,
      conversationId: result.conversationId,
      turnId: result.turnId,
      ranAt: result.at.toISOString(),
    },
    channelIds: [result.channelId],
  });
  if (!eventId) throw new Error("the schedule's answer was not recorded");
  const [delivery] = await db
    .select({ id: alertDelivery.id })
    .from(alertDelivery)
    .where(and(eq(alertDelivery.eventId, eventId), eq(alertDelivery.channelId, result.channelId)));
  if (!delivery) throw new Error("the alert channel is disabled or gone");
  return delivery.id;
}
