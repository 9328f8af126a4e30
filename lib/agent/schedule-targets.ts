import "server-only";
import { and, asc, eq } from "drizzle-orm";
import { z } from "zod";
import type { Database } from "@/db";
import { alertChannel, type MembershipRole, type ScheduleTarget, sysAgentSession } from "@/db/schema";
import { isUuid } from "@/lib/core/schema/uuid";

export type { ScheduleTarget } from "@/db/schema";

/**
 * What the tools accept as a schedule's target (the jsonb column's shape). A plain union: its JSON Schema is an
 * `anyOf`, which every provider's tool schema takes (a discriminated union's `oneOf` is not).
 */
export const scheduleTargetInput = z.union([
  z.strictObject({
    type: z.literal("conversation"),
    conversationId: z
      .string()
      .max(64)
      .describe("Another conversation of yours: the message runs as a turn there"),
  }),
  z.strictObject({
    type: z.literal("alert_channel"),
    channelId: z
      .string()
      .max(64)
      .describe(
        "An alert channel of this tenant (its id from the Alerts page): each answer is sent there too",
      ),
  }),
]);

/** Who owns the schedule, and the conversation it was made in. */
export type TargetOwner = {
  tenantId: string;
  userId: string;
  /** The owner's role now: only a tenant admin may send answers to the tenant's alert channels. */
  role: MembershipRole;
  conversationId: string;
};

/** Where a run goes: the conversation whose turn it is, and the alert channel that gets the answer too, if any. */
export type ResolvedTarget = { conversationId: string; channelId: string | null };

/**
 * Proves a target is the owner's to use, at create and update and again at every run (a conversation may be
 * deleted, a channel disabled, an admin demoted in between). Throws an Error naming what is wrong.
 * A conversation target must be another conversation of the same user in the same tenant; an alert channel
 * target an enabled channel of the same tenant (never the platform's), chosen by a tenant admin.
 */
export async function resolveTarget(
  db: Database,
  owner: TargetOwner,
  target: ScheduleTarget | null | undefined,
): Promise<ResolvedTarget> {
  if (!target) return { conversationId: owner.conversationId, channelId: null };
  if (target.type === "conversation") {
    const id = target.conversationId;
    if (id === owner.conversationId)
      throw new Error("the target conversation is this conversation: leave the target out instead");
    const [found] = isUuid(id)
      ? await db
          .select({ id: sysAgentSession.id })
          .from(sysAgentSession)
          .where(
            and(
              eq(sysAgentSession.id, id),
              eq(sysAgentSession.tenantId, owner.tenantId),
              eq(sysAgentSession.userId, owner.userId),
            ),
          )
          .limit(1)
      : [];
    if (!found)
      throw new Error(
        `target conversation ${id} is not one of your conversations in this tenant (only your own can be a target)`,
      );
    return { conversationId: id, channelId: null };
  }
  const id = target.channelId;
  if (owner.role !== "admin")
    throw new Error("only a tenant admin can send a schedule's answers to an alert channel");
  const [channel] = isUuid(id)
    ? await db
        .select({ id: alertChannel.id, enabled: alertChannel.enabled })
        .from(alertChannel)
        .where(and(eq(alertChannel.id, id), eq(alertChannel.tenantId, owner.tenantId)))
        .limit(1)
    : [];
  if (!channel) throw new Error(`alert channel ${id} is not a channel of this tenant`);
  if (!channel.enabled)
    throw new Error(`alert channel ${id} is disabled: enable it on the Alerts page first`);
  return { conversationId: owner.conversationId, channelId: id };
}

/** The tenant's alert channels a schedule may target (enabled ones; never their config, which holds secrets). */
export async function targetableChannels(
  db: Database,
  tenantId: string,
): Promise<{ id: string; name: string; kind: string }[]> {
  return db
    .select({ id: alertChannel.id, name: alertChannel.name, kind: alertChannel.kind })
    .from(alertChannel)
    .where(and(eq(alertChannel.tenantId, tenantId), eq(alertChannel.enabled, true)))
    .orderBy(asc(alertChannel.name))
    .limit(50);
}

/** A schedule's answer on its way to an alert channel (queued as a durable delivery by features/alerts). */
export type ScheduleResult = {
  tenantId: string;
  channelId: string;
  scheduleId: string;
  runId: string;
  conversationId: string;
  turnId: string | null;
  /** The schedule's message, the request the answer answers. */
  message: string;
  answer: string;
  at: Date;
};

/** Queues a schedule's answer for an alert channel; throws when it cannot (the run is then logged failed). */
export type ScheduleResultDelivery = (result: ScheduleResult) => Promise<void>;
