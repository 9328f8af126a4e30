// The API keys an admin manages: create (the secret shown once), list, revoke, change; rotation is rotate.ts's.
// Finding a key on a call is lib/auth/api-keys.ts's (the hot path and its cache).
import "server-only";
import { and, desc, eq, inArray, isNull, ne, sql } from "drizzle-orm";
import type { Database, Executor } from "@/db";
import { type ApiKey, apiKey, sysAgentTurn } from "@/db/schema";
import type { CreatedKey, KeyListItem, KeyView } from "@/features/keys/contracts";
import { announceKeyEvent, hashSecret, newSecret } from "@/lib/auth/api-keys";
import { notifyInTransaction } from "@/lib/auth/key-events";
import { type Actor, recordChange } from "@/lib/changes/changes";
import { notFound } from "@/lib/core/errors/app-error";
import { normalizeDecimal } from "@/lib/core/format/money";

export const view = (k: typeof apiKey.$inferSelect): KeyView => ({
  id: k.id,
  name: k.name,
  prefix: k.prefix,
  createdAt: k.createdAt,
  lastUsedAt: k.lastUsedAt,
  revokedAt: k.revokedAt,
  allowedTools: k.allowedTools,
  expiresAt: k.expiresAt,
  rotatedFrom: k.rotatedFrom,
  rotatedTo: k.rotatedTo,
});

/**
 * Creates a key; the secret is returned this once and only its hash is stored. With an actor (an admin's
 * request), the admin-change log gets its row in the same transaction.
 */
export async function createApiKey(
  db: Database,
  input: {
    tenantId: string;
    name: string;
    createdBy: string;
    allowedTools?: string[] | null;
    expiresAt?: Date | null;
  },
  actor?: Actor,
): Promise<CreatedKey> {
  const row = await db.transaction(async (tx) => {
    const { secret, row: created } = await insertKey(tx, input);
    if (actor)
      await recordChange(tx, actor, {
        tenantId: input.tenantId,
        action: "api_key.created",
        objectType: "api_key",
        objectId: created.id,
        before: null,
        after: {
          name: created.name,
          prefix: created.prefix,
          allowedTools: created.allowedTools,
          expiresAt: created.expiresAt,
        },
      });
    return { secret, created };
  });
  return { secret: row.secret, key: view(row.created) };
}

/** Inserts a key with a new secret (returned, with the row); only the secret's hash is stored. */
export async function insertKey(
  tx: Executor,
  input: {
    tenantId: string;
    name: string;
    createdBy: string;
    allowedTools?: string[] | null;
    expiresAt?: Date | null;
    rotatedFrom?: string;
  },
): Promise<{ secret: string; row: ApiKey }> {
  const secret = newSecret();
  const [row] = await tx
    .insert(apiKey)
    .values({
      tenantId: input.tenantId,
      name: input.name,
      prefix: secret.slice(0, 10),
      secretHash: hashSecret(secret),
      createdBy: input.createdBy,
      allowedTools: input.allowedTools ?? null,
      expiresAt: input.expiresAt ?? null,
      rotatedFrom: input.rotatedFrom ?? null,
    })
    .returning();
  return { secret, row: row! };
}

/** The tenant's keys, newest first, each with its spend today and this month (UTC) from the ledger. */
export async function listApiKeys(
  db: Database,
  tenantId: string,
  now: Date = new Date(),
): Promise<KeyListItem[]> {
  const rows = await db
    .select()
    .from(apiKey)
    .where(eq(apiKey.tenantId, tenantId))
    .orderBy(desc(apiKey.createdAt));
  const spend = await keySpend(
    db,
    tenantId,
    rows.map((r) => r.id),
    now,
  );
  return rows.map((r) => ({
    ...view(r),
    spentToday: spend.get(r.id)?.today ?? "0",
    spentThisMonth: spend.get(r.id)?.month ?? "0",
  }));
}

/**
 * What each key's calls cost today and this month (UTC), summed exactly (numeric) over closed ledger rows.
 * `api_key_id = any(…)` with the month's start is a range scan per key on the (tenant, api_key_id, started_at)
 * index, however long the ledger.
 */
async function keySpend(db: Database, tenantId: string, keyIds: string[], now: Date) {
  const spend = new Map<string, { today: string; month: string }>();
  if (!keyIds.length) return spend;
  const day = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())).toISOString();
  const month = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString();
  const t = sysAgentTurn;
  const rows = await db
    .select({
      keyId: t.apiKeyId,
      today: sql<string>`coalesce(sum(${t.cost}) filter (where ${t.startedAt} >= ${day}::timestamptz), 0)::text`,
      month: sql<string>`coalesce(sum(${t.cost}), 0)::text`,
    })
    .from(t)
    .where(
      and(
        eq(t.tenantId, tenantId),
        inArray(t.apiKeyId, keyIds),
        sql`${t.startedAt} >= ${month}::timestamptz`,
        ne(t.status, "running"),
      ),
    )
    .groupBy(t.apiKeyId);
  for (const r of rows)
    if (r.keyId) spend.set(r.keyId, { today: normalizeDecimal(r.today), month: normalizeDecimal(r.month) });
  return spend;
}

/**
 * Revokes a key of this tenant; every instance's key cache forgets it at once (key-events.ts). Another
 * tenant's id is 404.
 */
export async function revokeApiKey(
  db: Database,
  q: { tenantId: string; id: string },
  actor?: Actor,
): Promise<KeyView> {
  const row = await db.transaction(async (tx) => {
    const [revoked] = await tx
      .update(apiKey)
      .set({ revokedAt: new Date() })
      .where(and(eq(apiKey.tenantId, q.tenantId), eq(apiKey.id, q.id), isNull(apiKey.revokedAt)))
      .returning();
    if (!revoked) throw notFound("API key");
    await notifyInTransaction(tx, { kind: "key", keyId: revoked.id });
    if (actor)
      await recordChange(tx, actor, {
        tenantId: q.tenantId,
        action: "api_key.revoked",
        objectType: "api_key",
        objectId: q.id,
        before: { name: revoked.name, prefix: revoked.prefix, status: "active" },
        after: { name: revoked.name, prefix: revoked.prefix, status: "revoked" },
      });
    return revoked;
  });
  await announceKeyEvent({ kind: "key", keyId: row.id });
  return view(row);
}

/**
 * Changes a live key of this tenant: the tools it may call over /mcp (null: every tool the tenant offers there)
 * and/or its expiry (null: never), each change with its admin-change row; every instance's key cache forgets the
 * key at once, so the next call sees the new list and expiry. Another tenant's id, or a revoked key, is 404.
 */
export async function updateApiKey(
  db: Database,
  q: { tenantId: string; id: string; allowedTools?: string[] | null; expiresAt?: Date | null },
  actor?: Actor,
): Promise<KeyView> {
  const row = await db.transaction(async (tx) => {
    const [before] = await tx
      .select()
      .from(apiKey)
      .where(and(eq(apiKey.tenantId, q.tenantId), eq(apiKey.id, q.id), isNull(apiKey.revokedAt)))
      .for("update");
    if (!before) throw notFound("API key");
    const [updated] = await tx
      .update(apiKey)
      .set({
        ...(q.allowedTools !== undefined ? { allowedTools: q.allowedTools } : {}),
        ...(q.expiresAt !== undefined ? { expiresAt: q.expiresAt } : {}),
      })
      .where(and(eq(apiKey.tenantId, q.tenantId), eq(apiKey.id, q.id)))
      .returning();
    await notifyInTransaction(tx, { kind: "key", keyId: q.id });
    if (actor && q.allowedTools !== undefined)
      await recordChange(tx, actor, {
        tenantId: q.tenantId,
        action: "api_key.tools_changed",
        objectType: "api_key",
        objectId: q.id,
        before: { name: updated!.name, allowedTools: before.allowedTools },
        after: { name: updated!.name, allowedTools: updated!.allowedTools },
      });
    if (actor && q.expiresAt !== undefined)
      await recordChange(tx, actor, {
        tenantId: q.tenantId,
        action: "api_key.expiry_changed",
        objectType: "api_key",
        objectId: q.id,
        before: { name: updated!.name, expiresAt: before.expiresAt },
        after: { name: updated!.name, expiresAt: updated!.expiresAt },
      });
    return updated!;
  });
  await announceKeyEvent({ kind: "key", keyId: row.id });
  return view(row);
}
