import "server-only";
import { and, asc, eq, isNull } from "drizzle-orm";
import type { z } from "zod";
import type { Database } from "@/db";
import { apiKey, type RunCeiling, runCeiling } from "@/db/schema";
import type { RunCeilingsAnswer, RunCeilingValues, runCeilingInput } from "@/features/limits/contracts";
import { type Actor, recordChange } from "@/lib/changes/changes";
import { AppError, notFound } from "@/lib/core/errors/app-error";
import { normalizeDecimal } from "@/lib/core/format/money";
import { invalidatePolicy } from "@/lib/pipeline/policy";

const valuesOf = (row: RunCeiling): RunCeilingValues => ({
  maxUsd: row.maxUsd === null ? null : normalizeDecimal(row.maxUsd),
  maxCalls: row.maxCalls,
  maxTokens: row.maxTokens,
  maxSeconds: row.maxSeconds,
});

/** The tenant's run ceilings and those of each of its keys not revoked (null where none is set). */
export async function readRunCeilings(db: Database, tenantId: string): Promise<RunCeilingsAnswer> {
  const [rows, keys] = await Promise.all([
    db.select().from(runCeiling).where(eq(runCeiling.tenantId, tenantId)),
    db
      .select({ id: apiKey.id, name: apiKey.name, prefix: apiKey.prefix })
      .from(apiKey)
      .where(and(eq(apiKey.tenantId, tenantId), isNull(apiKey.revokedAt)))
      .orderBy(asc(apiKey.name)),
  ]);
  const of = (scope: RunCeiling["scope"], subjectId: string) => {
    const row = rows.find((r) => r.scope === scope && r.subjectId === subjectId);
    return row ? valuesOf(row) : null;
  };
  return {
    tenant: of("tenant", tenantId),
    keys: keys.map((k) => ({ ...k, ceilings: of("key", k.id) })),
  };
}

/**
 * Sets (or, every value empty, removes) the ceilings of every run of the tenant or of one of its API keys, with
 * its admin-change row; the policy cache is cleared so the next call meets them. Another tenant's key, or none,
 * is not found; a revoked key is a conflict.
 */
export async function saveRunCeilings(
  db: Database,
  tenantId: string,
  input: z.output<typeof runCeilingInput>,
  actor: Actor,
): Promise<RunCeilingValues | null> {
  const { scope, subjectId: given, ...raw } = input;
  const values: RunCeilingValues = {
    ...raw,
    maxUsd: raw.maxUsd === null ? null : normalizeDecimal(raw.maxUsd),
  };
  const subjectId = scope === "tenant" ? tenantId : given;
  if (!subjectId)
    throw new AppError("validation_failed", "the request is invalid", {
      fields: { subjectId: ["the id of the API key is required"] },
    });
  if (scope === "key") {
    const [key] = await db
      .select({ revokedAt: apiKey.revokedAt })
      .from(apiKey)
      .where(and(eq(apiKey.tenantId, tenantId), eq(apiKey.id, subjectId)));
    if (!key) throw notFound("API key");
    if (key.revokedAt)
      throw new AppError("conflict", "this API key is revoked; its run ceilings would hold nothing");
  }
  const where = and(
    eq(runCeiling.tenantId, tenantId),
    eq(runCeiling.scope, scope),
    eq(runCeiling.subjectId, subjectId),
  );
  const cleared = Object.values(values).every((v) => v === null);
  await db.transaction(async (tx) => {
    const [previous] = await tx.select().from(runCeiling).where(where).for("update");
    if (cleared) await tx.delete(runCeiling).where(where);
    else
      await tx
        .insert(runCeiling)
        .values({ tenantId, scope, subjectId, ...values, updatedBy: actor.id })
        .onConflictDoUpdate({
          target: [runCeiling.tenantId, runCeiling.scope, runCeiling.subjectId],
          set: { ...values, updatedBy: actor.id, updatedAt: new Date() },
        });
    const before = previous ? valuesOf(previous) : null;
    const after = cleared ? null : values;
    if (JSON.stringify(before) !== JSON.stringify(after))
      await recordChange(tx, actor, {
        tenantId,
        action: cleared ? "run_ceiling.removed" : "run_ceiling.set",
        objectType: "run_ceiling",
        objectId: `${scope}:${subjectId}`,
        before: before && { scope, subjectId, ...before },
        after: after && { scope, subjectId, ...after },
      });
  });
  invalidatePolicy(tenantId);
  return cleared ? null : values;
}
