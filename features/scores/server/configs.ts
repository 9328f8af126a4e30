// A tenant's score configs: listed, created, changed (description, range, categories) and archived by its admins,
// each change logged.
import "server-only";
import { and, asc, eq, sql } from "drizzle-orm";
import type { Database, Executor } from "@/db";
import { type ScoreConfig, scoreConfig } from "@/db/schema";
import {
  type ScoreConfigInput,
  type ScoreConfigPatch,
  type ScoreConfigView,
  scoreConfigInput,
} from "@/features/scores/contracts";
import { type Actor, recordChange } from "@/lib/changes/changes";
import { AppError, fieldErrors, notFound } from "@/lib/core/errors/app-error";

export const scoreConfigView = (c: ScoreConfig): ScoreConfigView => ({
  id: c.id,
  name: c.name,
  type: c.type,
  min: c.min,
  max: c.max,
  categories: c.categories,
  description: c.description,
  archivedAt: c.archivedAt?.toISOString() ?? null,
  createdAt: c.createdAt.toISOString(),
  updatedAt: c.updatedAt.toISOString(),
});

const logged = (c: ScoreConfig) => ({
  name: c.name,
  type: c.type,
  min: c.min,
  max: c.max,
  categories: c.categories,
  description: c.description,
  archivedAt: c.archivedAt,
});

/** At most this many configs a tenant keeps (archived ones included). */
export const SCORE_CONFIGS_MAX = 200;

/** The tenant's score configs, live first, by name. */
export async function listScoreConfigs(db: Database, tenantId: string): Promise<ScoreConfigView[]> {
  const rows = await db
    .select()
    .from(scoreConfig)
    .where(eq(scoreConfig.tenantId, tenantId))
    .orderBy(sql`${scoreConfig.archivedAt} is not null`, asc(scoreConfig.name))
    .limit(SCORE_CONFIGS_MAX);
  return rows.map(scoreConfigView);
}

/** Creates a config (logged); 409 when the tenant has one of that name already (archived included). */
export async function createScoreConfig(
  db: Database,
  tenantId: string,
  input: ScoreConfigInput,
  actor: Actor,
): Promise<ScoreConfigView> {
  return db.transaction(async (tx) => {
    const [count] = await tx
      .select({ n: sql<number>`count(*)::int` })
      .from(scoreConfig)
      .where(eq(scoreConfig.tenantId, tenantId));
    if ((count?.n ?? 0) >= SCORE_CONFIGS_MAX)
      throw new AppError("conflict", `a tenant keeps at most ${SCORE_CONFIGS_MAX} score configs`);
    const [row] = await tx
      .insert(scoreConfig)
      .values({
        tenantId,
        name: input.name,
        type: input.type,
        min: input.min ?? null,
        max: input.max ?? null,
        categories: input.categories ?? [],
        description: input.description || null,
      })
      .onConflictDoNothing()
      .returning();
    if (!row) throw new AppError("conflict", `a score config named "${input.name}" already exists`);
    await recordChange(tx, actor, {
      tenantId,
      action: "score_config.created",
      objectType: "score_config",
      objectId: row.id,
      before: null,
      after: logged(row),
    });
    return scoreConfigView(row);
  });
}

async function configOrThrow(db: Executor, tenantId: string, id: string): Promise<ScoreConfig> {
  const [row] = await db
    .select()
    .from(scoreConfig)
    .where(and(eq(scoreConfig.tenantId, tenantId), eq(scoreConfig.id, id)))
    .limit(1);
  if (!row) throw notFound("score config");
  return row;
}

/**
 * Changes a config's description, range or categories (name and type stay): the result is checked as a new
 * config would be (422 naming the field). Scores already given keep their values.
 */
export async function updateScoreConfig(
  db: Database,
  tenantId: string,
  id: string,
  patch: ScoreConfigPatch,
  actor: Actor,
): Promise<ScoreConfigView> {
  return db.transaction(async (tx) => {
    const before = await configOrThrow(tx, tenantId, id);
    const next = {
      name: before.name,
      type: before.type,
      min: patch.min === undefined ? before.min : patch.min,
      max: patch.max === undefined ? before.max : patch.max,
      categories: patch.categories ?? before.categories,
      description: (patch.description === undefined ? before.description : patch.description) ?? undefined,
    };
    const checked = scoreConfigInput.safeParse(next);
    if (!checked.success)
      throw new AppError("validation_failed", "the config is invalid", {
        fields: fieldErrors(checked.error),
      });
    const [row] = await tx
      .update(scoreConfig)
      .set({
        min: next.min,
        max: next.max,
        categories: next.categories,
        description: next.description || null,
        updatedAt: new Date(),
      })
      .where(and(eq(scoreConfig.tenantId, tenantId), eq(scoreConfig.id, id)))
      .returning();
    await recordChange(tx, actor, {
      tenantId,
      action: "score_config.updated",
      objectType: "score_config",
      objectId: id,
      before: logged(before),
      after: logged(row!),
    });
    return scoreConfigView(row!);
  });
}

/** Archives a config: it validates no new score (its scores stay). Archiving an archived config changes nothing. */
export async function archiveScoreConfig(
  db: Database,
  tenantId: string,
  id: string,
  actor: Actor,
): Promise<ScoreConfigView> {
  return db.transaction(async (tx) => {
    const before = await configOrThrow(tx, tenantId, id);
    if (before.archivedAt) return scoreConfigView(before);
    const [row] = await tx
      .update(scoreConfig)
      .set({ archivedAt: new Date(), updatedAt: new Date() })
      .where(and(eq(scoreConfig.tenantId, tenantId), eq(scoreConfig.id, id)))
      .returning();
    await recordChange(tx, actor, {
      tenantId,
      action: "score_config.archived",
      objectType: "score_config",
      objectId: id,
      before: logged(before),
      after: logged(row!),
    });
    return scoreConfigView(row!);
  });
}
