// Rotating a key without downtime: a successor that carries the key's settings, and the old key kept working
// for an overlap, after which it answers 401 key_expired.
import "server-only";
import { and, eq, inArray, isNull } from "drizzle-orm";
import type { Database, Executor } from "@/db";
import { apiKey, guardrailPolicy, usageLimit } from "@/db/schema";
import { announceGuardrailChange } from "@/features/guardrails/server";
import type { RotatedKey } from "@/features/keys/contracts";
import { announceKeyEvent } from "@/lib/auth/api-keys";
import { notifyInTransaction } from "@/lib/auth/key-events";
import { type Actor, recordChange } from "@/lib/changes/changes";
import { AppError, notFound } from "@/lib/core/errors/app-error";
import { insertKey, view } from "./keys";

const HOUR_MS = 3_600_000;

/** The successor's name: the key's, with the day of the rotation (cut so the whole fits the 100 characters). */
export function rotatedName(name: string, now: Date): string {
  const suffix = ` (rotated ${now.toISOString().slice(0, 10)})`;
  return `${name.slice(0, 100 - suffix.length)}${suffix}`;
}

/**
 * Rotates a live key of this tenant: creates its successor (the name with a suffix, the same tools, per-key limits
 * and guardrail scopes; an expiry, if the key had one, of the same lifetime from now), links the two, and lets the
 * old key work for `overlapHours` more (or less, if it expired sooner already). The successor's secret is
 * answered this once. Another tenant's id, or a revoked key, is 404; a key rotated already is 409.
 */
export async function rotateApiKey(
  db: Database,
  q: { tenantId: string; id: string; overlapHours: number; createdBy: string },
  actor?: Actor,
  now = new Date(),
): Promise<RotatedKey> {
  const done = await db.transaction(async (tx) => {
    const [old] = await tx
      .select()
      .from(apiKey)
      .where(and(eq(apiKey.tenantId, q.tenantId), eq(apiKey.id, q.id), isNull(apiKey.revokedAt)))
      .for("update");
    if (!old) throw notFound("API key");
    if (old.rotatedTo) {
      const [next] = await tx
        .select({ name: apiKey.name })
        .from(apiKey)
        .where(and(eq(apiKey.tenantId, q.tenantId), eq(apiKey.id, old.rotatedTo)));
      throw new AppError(
        "conflict",
        `this key was rotated already: its successor is “${next?.name ?? "?"}” (${old.rotatedTo}); rotate that one`,
      );
    }
    const lifetime = old.expiresAt ? old.expiresAt.getTime() - old.createdAt.getTime() : null;
    const { secret, row: successor } = await insertKey(tx, {
      tenantId: q.tenantId,
      name: rotatedName(old.name, now),
      createdBy: q.createdBy,
      allowedTools: old.allowedTools,
      expiresAt: lifetime !== null && lifetime > 0 ? new Date(now.getTime() + lifetime) : null,
      rotatedFrom: old.id,
    });
    const overlapEnd = new Date(now.getTime() + q.overlapHours * HOUR_MS);
    const expiresAt = old.expiresAt && old.expiresAt < overlapEnd ? old.expiresAt : overlapEnd;
    const [previous] = await tx
      .update(apiKey)
      .set({ expiresAt, rotatedTo: successor.id })
      .where(and(eq(apiKey.tenantId, q.tenantId), eq(apiKey.id, old.id)))
      .returning();
    const limitsCopied = await copyKeyLimits(tx, q.tenantId, old.id, successor.id, q.createdBy);
    const guardrailsChanged = await addToGuardrailScopes(tx, q.tenantId, old.id, successor.id);
    await notifyInTransaction(tx, { kind: "key", keyId: old.id });
    if (actor)
      await recordChange(tx, actor, {
        tenantId: q.tenantId,
        action: "api_key.rotated",
        objectType: "api_key",
        objectId: old.id,
        before: { name: old.name, prefix: old.prefix, expiresAt: old.expiresAt, rotatedTo: null },
        after: {
          name: old.name,
          prefix: old.prefix,
          expiresAt,
          rotatedTo: successor.id,
          successor: { name: successor.name, prefix: successor.prefix, expiresAt: successor.expiresAt },
          limitsCopied,
          overlapHours: q.overlapHours,
        },
      });
    return { secret, successor, previous: previous!, guardrailsChanged };
  });
  await announceKeyEvent({ kind: "key", keyId: q.id });
  if (done.guardrailsChanged) await announceGuardrailChange(q.tenantId);
  return { secret: done.secret, key: view(done.successor), previous: view(done.previous) };
}

/**
 * The old key's own rate limits and budgets and its end users' template (usage_limit, scopes key and
 * end_user_template), as the successor's. Whether there were any.
 */
async function copyKeyLimits(
  tx: Executor,
  tenantId: string,
  from: string,
  to: string,
  by: string,
): Promise<boolean> {
  const rows = await tx
    .select()
    .from(usageLimit)
    .where(
      and(
        eq(usageLimit.tenantId, tenantId),
        inArray(usageLimit.scope, ["key", "end_user_template"]),
        eq(usageLimit.subjectId, from),
      ),
    );
  if (!rows.length) return false;
  await tx
    .insert(usageLimit)
    .values(rows.map(({ updatedAt: _at, ...row }) => ({ ...row, subjectId: to, updatedBy: by })));
  // No policy cache to clear: nothing has called with the successor yet (its secret is not answered until commit).
  return true;
}

/**
 * Every guardrail rule scoped to the old key (`scope.keys`) covers the successor too, so no rule stops applying
 * when the callers switch keys. Whether any rule changed.
 */
async function addToGuardrailScopes(
  tx: Executor,
  tenantId: string,
  from: string,
  to: string,
): Promise<boolean> {
  const [policy] = await tx
    .select({ rules: guardrailPolicy.rules })
    .from(guardrailPolicy)
    .where(eq(guardrailPolicy.tenantId, tenantId))
    .for("update");
  if (!policy) return false;
  let changed = false;
  const rules = policy.rules.map((rule) => {
    const scope = rule.scope as { keys?: unknown } | undefined;
    if (!Array.isArray(scope?.keys) || !scope.keys.includes(from) || scope.keys.includes(to)) return rule;
    changed = true;
    return { ...rule, scope: { ...scope, keys: [...scope.keys, to] } };
  });
  if (changed) await tx.update(guardrailPolicy).set({ rules }).where(eq(guardrailPolicy.tenantId, tenantId));
  return changed;
}
