// The rules of an owner: listed with when each last fired, created, changed and deleted (each change logged).
import "server-only";
import { and, desc, eq, inArray, max } from "drizzle-orm";
import type { z } from "zod";
import type { Executor } from "@/db";
import { type AlertRule, alertChannel, alertEvent, alertRule } from "@/db/schema";
import { type Actor, recordChange } from "@/lib/changes/changes";
import { notFound } from "@/lib/core/errors/app-error";
import {
  type AlertRuleInput,
  type AlertRuleView,
  type alertRulePatch,
  isPlatformKind,
  PLATFORM_RULE_KINDS,
  RULE_PARAMS,
} from "../contracts";
import { type AlertOwner, invalid, invalidPart, ownedBy, PLATFORM_CHANGE_TENANT } from "./owner";

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
