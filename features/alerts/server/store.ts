import "server-only";
import { and, desc, eq, inArray, isNull, max, type SQL } from "drizzle-orm";
import type { z } from "zod";
import type { Executor } from "@/db";
import { type AlertChannel, type AlertRule, alertChannel, alertEvent, alertRule } from "@/db/schema";
import { type Actor, recordChange } from "@/lib/changes/changes";
import { AppError, notFound } from "@/lib/core/errors/app-error";
import type { AlertChannelInput } from "../channels";
import {
  type AlertChannelView,
  type AlertRuleInput,
  type AlertRuleView,
  type alertChannelPatch,
  type alertRulePatch,
  CHANNEL_CONFIGS,
  isPlatformKind,
  PLATFORM_RULE_KINDS,
  RULE_PARAMS,
} from "../contracts";

/** Whose rules and channels: a tenant's, or (null) the platform's, the super admin's. */
export type AlertOwner = string | null;

/**
 * The admin-change log needs a tenant: platform rows are logged under the nil UUID (no tenant has it), which the
 * super admin's change log lists as the platform's.
 */
export const PLATFORM_CHANGE_TENANT = "00000000-0000-0000-0000-000000000000";

const ownedBy = (column: typeof alertRule.tenantId | typeof alertChannel.tenantId, owner: AlertOwner): SQL =>
  owner === null ? isNull(column) : eq(column, owner);

const invalid = (field: string, message: string) =>
  new AppError("validation_failed", message, { fields: { [field]: [message] } });

/** A zod failure of a part of the body, its paths under `prefix`. */
function invalidPart(prefix: string, error: z.ZodError): AppError {
  const fields: Record<string, string[]> = {};
  for (const issue of error.issues) {
    const key = [prefix, ...issue.path.map(String)].join(".");
    fields[key] = [...(fields[key] ?? []), issue.message];
  }
  const [first] = Object.entries(fields);
  return new AppError("validation_failed", first ? `${first[0]}: ${first[1][0]}` : "invalid", { fields });
}

// ---------------------------------------------------------------------------------------------------- rules

const ruleView = (r: AlertRule, lastFiredAt: Date | null): AlertRuleView => ({
  id: r.id,
  name: r.name,
  kind: r.kind,
  params: r.params,
  channelIds: r.channelIds,
  enabled: r.enabled,
  lastFiredAt: lastFiredAt ? lastFiredAt.toISOString() : null,
  updatedAt: r.updatedAt.toISOString(),
});

/** The owner's rules, oldest first, each with when it last fired. */
export async function listRules(db: Executor, owner: AlertOwner): Promise<AlertRuleView[]> {
  const rows = await db
    .select()
    .from(alertRule)
    .where(ownedBy(alertRule.tenantId, owner))
    .orderBy(alertRule.createdAt);
  if (!rows.length) return [];
  const fired = await db
    .select({ ruleId: alertEvent.ruleId, at: max(alertEvent.firedAt) })
    .from(alertEvent)
    .where(
      inArray(
        alertEvent.ruleId,
        rows.map((r) => r.id),
      ),
    )
    .groupBy(alertEvent.ruleId);
  const last = new Map(fired.map((f) => [f.ruleId, f.at]));
  return rows.map((r) => ruleView(r, last.get(r.id) ?? null));
}

async function ruleOrThrow(db: Executor, owner: AlertOwner, id: string): Promise<AlertRule> {
  const [row] = await db
    .select()
    .from(alertRule)
    .where(and(eq(alertRule.id, id), ownedBy(alertRule.tenantId, owner)))
    .limit(1);
  if (!row) throw notFound("alert rule");
  return row;
}

/** 422 unless every channel is the owner's own (another tenant's is as unknown as a made-up id). */
async function checkChannels(db: Executor, owner: AlertOwner, ids: string[]): Promise<void> {
  if (!ids.length) return;
  const found = await db
    .select({ id: alertChannel.id })
    .from(alertChannel)
    .where(and(inArray(alertChannel.id, ids), ownedBy(alertChannel.tenantId, owner)));
  const known = new Set(found.map((c) => c.id));
  const unknown = ids.filter((id) => !known.has(id));
  if (unknown.length)
    throw invalid(
      "channelIds",
      `no channel ${unknown.join(", ")} here: a rule is sent to its own channels only`,
    );
}

function checkKind(owner: AlertOwner, kind: AlertRule["kind"]) {
  if (owner === null && !isPlatformKind(kind))
    throw invalid("kind", `a platform rule watches ${PLATFORM_RULE_KINDS.join(", ")}; ${kind} is a tenant's`);
}

const loggedRule = (r: AlertRule) => ({
  name: r.name,
  kind: r.kind,
  params: r.params,
  channelIds: r.channelIds,
  enabled: r.enabled,
});

export async function createRule(
  db: Executor,
  owner: AlertOwner,
  input: AlertRuleInput,
  actor: Actor,
): Promise<AlertRuleView> {
  checkKind(owner, input.kind);
  const channelIds = [...new Set(input.channelIds)];
  return db.transaction(async (tx) => {
    await checkChannels(tx, owner, channelIds);
    const [row] = await tx
      .insert(alertRule)
      .values({ ...input, channelIds, tenantId: owner, updatedBy: actor.id })
      .returning();
    await recordChange(tx, actor, {
      tenantId: owner ?? PLATFORM_CHANGE_TENANT,
      action: "alert_rule.created",
      objectType: "alert_rule",
      objectId: row!.id,
      before: null,
      after: loggedRule(row!),
    });
    return ruleView(row!, null);
  });
}

export async function updateRule(
  db: Executor,
  owner: AlertOwner,
  id: string,
  patch: z.output<typeof alertRulePatch>,
  actor: Actor,
): Promise<AlertRuleView> {
  return db.transaction(async (tx) => {
    const before = await ruleOrThrow(tx, owner, id);
    let params = before.params;
    if (patch.params) {
      const parsed = RULE_PARAMS[before.kind].safeParse(patch.params);
      if (!parsed.success) throw invalidPart("params", parsed.error);
      params = parsed.data as Record<string, unknown>;
    }
    const channelIds = patch.channelIds ? [...new Set(patch.channelIds)] : before.channelIds;
    if (patch.channelIds) await checkChannels(tx, owner, channelIds);
    const [row] = await tx
      .update(alertRule)
      .set({
        name: patch.name ?? before.name,
        enabled: patch.enabled ?? before.enabled,
        params,
        channelIds,
        updatedAt: new Date(),
        updatedBy: actor.id,
      })
      .where(eq(alertRule.id, id))
      .returning();
    await recordChange(tx, actor, {
      tenantId: owner ?? PLATFORM_CHANGE_TENANT,
      action: "alert_rule.updated",
      objectType: "alert_rule",
      objectId: id,
      before: loggedRule(before),
      after: loggedRule(row!),
    });
    const [fired] = await tx
      .select({ at: max(alertEvent.firedAt) })
      .from(alertEvent)
      .where(eq(alertEvent.ruleId, id));
    return ruleView(row!, fired?.at ?? null);
  });
}

export async function deleteRule(db: Executor, owner: AlertOwner, id: string, actor: Actor): Promise<void> {
  await db.transaction(async (tx) => {
    const before = await ruleOrThrow(tx, owner, id);
    await tx.delete(alertRule).where(eq(alertRule.id, id));
    await recordChange(tx, actor, {
      tenantId: owner ?? PLATFORM_CHANGE_TENANT,
      action: "alert_rule.deleted",
      objectType: "alert_rule",
      objectId: id,
      before: loggedRule(before),
      after: null,
    });
  });
}

// ------------------------------------------------------------------------------------------------- channels

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

/** The rules of one owner the evaluator runs: enabled, of the given kinds. */
export function enabledRules(db: Executor, kinds: AlertRule["kind"][], tenantId?: AlertOwner) {
  return db
    .select()
    .from(alertRule)
    .where(
      and(
        eq(alertRule.enabled, true),
        inArray(alertRule.kind, kinds),
        tenantId === undefined ? undefined : ownedBy(alertRule.tenantId, tenantId),
      ),
    )
    .orderBy(desc(alertRule.createdAt));
}
