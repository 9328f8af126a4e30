// The channels of an owner, answered without their secrets: listed, created, changed (what is left out is kept)
// and deleted (each change logged, without the secrets).
import "server-only";
import { and, eq } from "drizzle-orm";
import type { z } from "zod";
import type { Executor } from "@/db";
import { type AlertChannel, alertChannel, alertRule } from "@/db/schema";
import { type Actor, recordChange } from "@/lib/changes/changes";
import { notFound } from "@/lib/core/errors/app-error";
import type { AlertChannelInput } from "../channels";
import { type AlertChannelView, type alertChannelPatch, CHANNEL_CONFIGS } from "../contracts";
import { type AlertOwner, invalidPart, ownedBy, PLATFORM_CHANGE_TENANT } from "./owner";

/** A URL's scheme and host only: a Slack webhook's path is its secret. */
const hostOf = (url: string) =>
  URL.canParse(url) ? `${new URL(url).protocol}//${new URL(url).host}/…` : "…";
/** A webhook's URL without its query (where a receiver's token may sit). */
const withoutQuery = (url: string) =>
  URL.canParse(url) && new URL(url).search ? `${url.slice(0, url.indexOf("?"))}?…` : url;

export function channelView(c: AlertChannel): AlertChannelView {
  const config = c.config;
  const base = {
    id: c.id,
    name: c.name,
    kind: c.kind,
    enabled: c.enabled,
    updatedAt: c.updatedAt.toISOString(),
  };
  if (c.kind === "webhook")
    return {
      ...base,
      target: withoutQuery(String(config.url)),
      config: { url: config.url, maxAttempts: config.maxAttempts },
      secretSet: typeof config.secret === "string" && config.secret.length > 0,
    };
  if (c.kind === "slack")
    return {
      ...base,
      target: hostOf(String(config.url)),
      config: { maxAttempts: config.maxAttempts },
      secretSet: typeof config.url === "string" && config.url.length > 0,
    };
  const to = Array.isArray(config.to) ? config.to.map(String) : [];
  return {
    ...base,
    target: to.join(", "),
    config: { to, maxAttempts: config.maxAttempts },
    secretSet: false,
  };
}

/** What the change log keeps of a channel: its view (no secret, no Slack URL). */
const loggedChannel = (c: AlertChannel) => {
  const { id: _id, updatedAt: _at, ...rest } = channelView(c);
  return rest;
};

export async function listChannels(db: Executor, owner: AlertOwner): Promise<AlertChannelView[]> {
  const rows = await db
    .select()
    .from(alertChannel)
    .where(ownedBy(alertChannel.tenantId, owner))
    .orderBy(alertChannel.createdAt);
  return rows.map(channelView);
}

/** The owner's channel, or 404 (another tenant's included, so its existence is not revealed). */
export async function channelOrThrow(db: Executor, owner: AlertOwner, id: string): Promise<AlertChannel> {
  const [row] = await db
    .select()
    .from(alertChannel)
    .where(and(eq(alertChannel.id, id), ownedBy(alertChannel.tenantId, owner)))
    .limit(1);
  if (!row) throw notFound("alert channel");
  return row;
}

export async function createChannel(
  db: Executor,
  owner: AlertOwner,
  input: AlertChannelInput,
  actor: Actor,
): Promise<AlertChannelView> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(alertChannel)
      .values({
        tenantId: owner,
        name: input.name,
        kind: input.kind,
        enabled: input.enabled,
        config: input.config as Record<string, unknown>,
        updatedBy: actor.id,
      })
      .returning();
    await recordChange(tx, actor, {
      tenantId: owner ?? PLATFORM_CHANGE_TENANT,
      action: "alert_channel.created",
      objectType: "alert_channel",
      objectId: row!.id,
      before: null,
      after: loggedChannel(row!),
    });
    return channelView(row!);
  });
}

export async function updateChannel(
  db: Executor,
  owner: AlertOwner,
  id: string,
  patch: z.output<typeof alertChannelPatch>,
  actor: Actor,
): Promise<AlertChannelView> {
  return db.transaction(async (tx) => {
    const before = await channelOrThrow(tx, owner, id);
    let config = before.config;
    if (patch.config) {
      // What is left out is kept: the secret and the Slack URL the page never has.
      const parsed = CHANNEL_CONFIGS[before.kind].safeParse({ ...before.config, ...patch.config });
      if (!parsed.success) throw invalidPart("config", parsed.error);
      config = parsed.data as Record<string, unknown>;
    }
    const [row] = await tx
      .update(alertChannel)
      .set({
        name: patch.name ?? before.name,
        enabled: patch.enabled ?? before.enabled,
        config,
        updatedAt: new Date(),
        updatedBy: actor.id,
      })
      .where(eq(alertChannel.id, id))
      .returning();
    await recordChange(tx, actor, {
      tenantId: owner ?? PLATFORM_CHANGE_TENANT,
      action: "alert_channel.updated",
      objectType: "alert_channel",
      objectId: id,
      before: loggedChannel(before),
      after: loggedChannel(row!),
    });
    return channelView(row!);
  });
}

/** Deletes a channel (its deliveries go with it) and takes it off the owner's rules. */
export async function deleteChannel(
  db: Executor,
  owner: AlertOwner,
  id: string,
  actor: Actor,
): Promise<void> {
  await db.transaction(async (tx) => {
    const before = await channelOrThrow(tx, owner, id);
    const rules = await tx
      .select({ id: alertRule.id, channelIds: alertRule.channelIds })
      .from(alertRule)
      .where(ownedBy(alertRule.tenantId, owner));
    for (const r of rules.filter((r) => r.channelIds.includes(id)))
      await tx
        .update(alertRule)
        .set({ channelIds: r.channelIds.filter((c) => c !== id) })
        .where(eq(alertRule.id, r.id));
    await tx.delete(alertChannel).where(eq(alertChannel.id, id));
    await recordChange(tx, actor, {
      tenantId: owner ?? PLATFORM_CHANGE_TENANT,
      action: "alert_channel.deleted",
      objectType: "alert_channel",
      objectId: id,
      before: loggedChannel(before),
      after: null,
    });
  });
}
