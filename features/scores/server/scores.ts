import "server-only";
import { and, asc, eq, inArray, isNull, sql } from "drizzle-orm";
import type { Database } from "@/db";
import { apiKey, appUser, type Score, type ScoreConfig, score, scoreConfig, sysAgentTurn } from "@/db/schema";
import {
  SCORE_SOURCES,
  SCORE_TYPES,
  type ScoreInput,
  type ScoreSource,
  type ScoreType,
  type ScoreView,
} from "@/features/scores/contracts";
import { AppError, notFound } from "@/lib/core/errors/app-error";
import { maskText } from "@/lib/core/text/mask";

// The contracts' lists and the schema's are one list each: a change to one without the other fails the type check.
const _types: readonly ScoreType[] = SCORE_TYPES satisfies readonly Score["type"][];
const _sources: readonly ScoreSource[] = SCORE_SOURCES satisfies readonly Score["source"][];
void _types;
void _sources;

/** Who puts a score: a person (session), a tenant key, or an eval run. */
export type ScoreAuthor = {
  tenantId: string;
  userId?: string | null;
  apiKeyId?: string | null;
  evalRunId?: string | null;
};

const invalid = (field: string, message: string) =>
  new AppError("validation_failed", message, { fields: { [field]: [message] } });

/** A stored score as the routes answer it: boolean back to true / false, categorical to its category. */
export function scoreView(row: Score): ScoreView {
  const value =
    row.type === "boolean" ? row.value === 1 : row.type === "categorical" ? row.category : row.value;
  return {
    id: row.id,
    turnId: row.turnId,
    runId: row.runId,
    name: row.name,
    type: row.type,
    value,
    comment: row.comment,
    source: row.source,
    userId: row.userId,
    apiKeyId: row.apiKeyId,
    evalRunId: row.evalRunId,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The tenant's live config of that name, if any. */
export async function liveScoreConfig(db: Database, tenantId: string, name: string) {
  const [row] = await db
    .select()
    .from(scoreConfig)
    .where(
      and(eq(scoreConfig.tenantId, tenantId), eq(scoreConfig.name, name), isNull(scoreConfig.archivedAt)),
    );
  return row ?? null;
}

/**
 * The stored form of a value: its type and columns. With a config the value must be of the config's type and in
 * its range or categories; without one the type follows the value (a number, true / false, a category).
 */
export function storedValue(
  value: ScoreInput["value"],
  config: Pick<ScoreConfig, "name" | "type" | "min" | "max" | "categories"> | null,
): { type: ScoreType; value: number | null; category: string | null } {
  const type: ScoreType =
    typeof value === "boolean" ? "boolean" : typeof value === "number" ? "numeric" : "categorical";
  if (config && config.type !== type)
    throw invalid("value", `the score "${config.name}" is ${config.type}: send ${EXPECTED[config.type]}`);
  if (config && type === "numeric") {
    const n = value as number;
    if (config.min !== null && n < config.min)
      throw invalid("value", `the score "${config.name}" is at least ${config.min}; ${n} is below it`);
    if (config.max !== null && n > config.max)
      throw invalid("value", `the score "${config.name}" is at most ${config.max}; ${n} is above it`);
  }
  if (config && type === "categorical" && !config.categories.includes(value as string))
    throw invalid(
      "value",
      `the score "${config.name}" is one of ${config.categories.map((c) => `"${c}"`).join(", ")}`,
    );
  if (type === "boolean") return { type, value: value ? 1 : 0, category: null };
  if (type === "numeric") return { type, value: value as number, category: null };
  return { type, value: null, category: value as string };
}
const EXPECTED: Record<ScoreType, string> = {
  numeric: "a number",
  boolean: "true or false",
  categorical: "one of its categories",
};

/**
 * The turn or run a score is on, in this tenant only: another tenant's id is "not found", as an id that does not
 * exist. A turn's score carries the turn's run. `onlyTurnsOf`: a member's own turns (or runs with one) only.
 */
async function targetOf(
  db: Database,
  tenantId: string,
  input: Pick<ScoreInput, "turnId" | "runId">,
  onlyTurnsOf?: string,
) {
  const mine = onlyTurnsOf ? eq(sysAgentTurn.userId, onlyTurnsOf) : undefined;
  if (input.turnId) {
    const [turn] = await db
      .select(TURN_COPY)
      .from(sysAgentTurn)
      .where(and(eq(sysAgentTurn.tenantId, tenantId), eq(sysAgentTurn.id, input.turnId), mine))
      .limit(1);
    if (!turn) throw notFound("turn");
    if (input.runId && turn.runId !== input.runId)
      throw invalid("runId", `the turn ${input.turnId} is not part of the run ${input.runId}`);
    return turn;
  }
  const [run] = await db
    .select({ runId: sysAgentTurn.runId })
    .from(sysAgentTurn)
    .where(and(eq(sysAgentTurn.tenantId, tenantId), eq(sysAgentTurn.runId, input.runId!), mine))
    .limit(1);
  if (!run) throw notFound("run");
  return { turnId: null, runId: input.runId!, turnStartedAt: null, turnModel: null };
}

/** What a score copies of its turn: the ids, and the start and served model its indexes order and group by. */
const TURN_COPY = {
  turnId: sysAgentTurn.id,
  runId: sysAgentTurn.runId,
  turnStartedAt: sysAgentTurn.startedAt,
  turnModel: sysAgentTurn.servedModel,
};

/** At most this many scores on one turn (or on one run, of its own): api and eval scores are rows of their own. */
export const SCORES_PER_TARGET_MAX = 1_000;

/** 409 when the turn (or run) already holds its share of scores; counted on its index, and no further. */
async function checkRoom(
  db: Database,
  tenantId: string,
  target: { turnId: string | null; runId: string | null },
) {
  const on = target.turnId
    ? eq(score.turnId, target.turnId)
    : and(eq(score.runId, target.runId!), isNull(score.turnId));
  const held = await db
    .select({ id: score.id })
    .from(score)
    .where(and(eq(score.tenantId, tenantId), on))
    .limit(SCORES_PER_TARGET_MAX);
  if (held.length >= SCORES_PER_TARGET_MAX)
    throw new AppError(
      "conflict",
      `the ${target.turnId ? "turn" : "run"} holds ${SCORES_PER_TARGET_MAX} scores, the most one may`,
    );
}

/**
 * Puts a score on a turn or a run of the author's tenant, validated by the tenant's config of that name. A
 * person's (`human`) score of one name on one turn or run is one row: sending it again changes it. The comment is
 * masked as the audit masks text. `onlyTurnsOf` keeps a member to their own turns (another's answers 404).
 */
export async function putScore(
  db: Database,
  author: ScoreAuthor,
  input: ScoreInput,
  source: ScoreSource,
  options: { onlyTurnsOf?: string } = {},
): Promise<{ score: ScoreView; created: boolean }> {
  const target = await targetOf(db, author.tenantId, input, options.onlyTurnsOf);
  const config = await liveScoreConfig(db, author.tenantId, input.name);
  const stored = storedValue(input.value, config);
  const values = {
    tenantId: author.tenantId,
    ...target,
    name: input.name,
    ...stored,
    comment: input.comment ? maskText(input.comment) : null,
    source,
    userId: author.userId ?? null,
    apiKeyId: author.apiKeyId ?? null,
    evalRunId: author.evalRunId ?? null,
    configId: config?.id ?? null,
  };
  const mine = source === "human" && author.userId;
  if (!mine) {
    await checkRoom(db, author.tenantId, target);
    const [row] = await db.insert(score).values(values).returning();
    return { score: scoreView(row!), created: true };
  }
  // One row per person, name and turn (or run, for a score on a run only): the partial unique index decides.
  const onTurn = target.turnId !== null;
  const [row] = await db
    .insert(score)
    .values(values)
    .onConflictDoUpdate({
      target: onTurn
        ? [score.tenantId, score.turnId, score.name, score.userId]
        : [score.tenantId, score.runId, score.name, score.userId],
      targetWhere: onTurn
        ? sql`${score.source} = 'human' and ${score.turnId} is not null and ${score.userId} is not null`
        : sql`${score.source} = 'human' and ${score.turnId} is null and ${score.userId} is not null`,
      set: {
        type: values.type,
        value: values.value,
        category: values.category,
        comment: values.comment,
        configId: values.configId,
        turnStartedAt: values.turnStartedAt,
        turnModel: values.turnModel,
        updatedAt: new Date(),
      },
    })
    .returning();
  return { score: scoreView(row!), created: row!.createdAt.getTime() === row!.updatedAt.getTime() };
}

/** Removes a person's own score of a name on a turn (the drawer's vote taken back); false when there was none. */
export async function deleteOwnScore(
  db: Database,
  owner: { tenantId: string; userId: string },
  turnId: string,
  name: string,
): Promise<boolean> {
  const rows = await db
    .delete(score)
    .where(
      and(
        eq(score.tenantId, owner.tenantId),
        eq(score.turnId, turnId),
        eq(score.name, name),
        eq(score.userId, owner.userId),
        eq(score.source, "human"),
      ),
    )
    .returning({ id: score.id });
  return rows.length > 0;
}

/** Who sends a score, for the source they may give: a person (a member or an admin) or a tenant key. */
export type ScoreSender = "member" | "admin" | "key";

/**
 * The source of a score from its sender: a person's defaults to `human`, a key's to `api`. A member says what they
 * think only (`human`); an admin may also send `api` or `eval` scores (an app or an evaluator through the UI's
 * session); a key has no person behind it, so `human` is refused (422 naming the field).
 */
export function scoreSourceFor(sender: ScoreSender, asked: ScoreSource | undefined): ScoreSource {
  if (sender === "key") {
    if (asked === "human")
      throw invalid("source", "a key's score is api or eval: human scores come from a signed-in person");
    return asked ?? "api";
  }
  const source = asked ?? "human";
  if (sender === "member" && source !== "human")
    throw new AppError("forbidden", `members send human scores only; ${source} scores are for tenant admins`);
  return source;
}

/** At most this many scores answer for one turn or run. */
export const SCORES_PER_TARGET = 500;

/** The tenant's scores of one turn, or of one run (its turns' scores included), oldest first; 404 for a target
 * that is not the tenant's (nor, with `onlyTurnsOf`, the person's). */
export async function scoresOfTarget(
  db: Database,
  tenantId: string,
  target: { turnId?: string; runId?: string },
  options: { onlyTurnsOf?: string } = {},
): Promise<ScoreView[]> {
  const found = await targetOf(
    db,
    tenantId,
    target.turnId ? { turnId: target.turnId } : target,
    options.onlyTurnsOf,
  );
  const rows = await db
    .select()
    .from(score)
    .where(
      and(
        eq(score.tenantId, tenantId),
        found.turnId ? eq(score.turnId, found.turnId) : eq(score.runId, found.runId!),
      ),
    )
    .orderBy(asc(score.createdAt), asc(score.id))
    .limit(SCORES_PER_TARGET);
  return rows.map(scoreView);
}

/** The scores on these turns of the tenant, oldest first (at most 100 turns at a time). */
export async function scoresOfTurns(db: Database, tenantId: string, turnIds: string[]): Promise<ScoreView[]> {
  if (!turnIds.length) return [];
  if (turnIds.length > 100) throw invalid("turnIds", "at most 100 turns at a time");
  const rows = await db
    .select()
    .from(score)
    .where(and(eq(score.tenantId, tenantId), inArray(score.turnId, turnIds)))
    .orderBy(asc(score.createdAt));
  return rows.map(scoreView);
}

/**
 * A turn's scores, or a run's own (those on the run itself, not on its turns), with who gave each (a person's email,
 * a key's name, an eval run), oldest first, at most 100.
 */
export async function scoresWithAuthors(
  db: Database,
  tenantId: string,
  target: { turnId: string } | { runId: string },
) {
  const on =
    "turnId" in target
      ? eq(score.turnId, target.turnId)
      : and(eq(score.runId, target.runId), isNull(score.turnId));
  const rows = await db
    .select({ score, email: appUser.email, keyName: apiKey.name })
    .from(score)
    .leftJoin(appUser, eq(appUser.id, score.userId))
    .leftJoin(apiKey, and(eq(apiKey.id, score.apiKeyId), eq(apiKey.tenantId, score.tenantId)))
    .where(and(eq(score.tenantId, tenantId), on))
    .orderBy(asc(score.createdAt), asc(score.id))
    .limit(100);
  return rows.map(({ score: row, email, keyName }) => {
    const view = scoreView(row);
    const who = email ?? keyName ?? (row.evalRunId ? `eval run ${row.evalRunId}` : null);
    return {
      name: view.name,
      type: view.type,
      value: view.value,
      comment: view.comment,
      source: view.source,
      who,
      updatedAt: view.updatedAt,
    };
  });
}

/** An evaluator's score of a turn: its name, a number (0 to 1 for the built-in scorers) and its reason. */
export type EvalTurnScore = { name: string; value: number; comment: string | null };

/**
 * Writes an evaluation's scores of one of its own calls (source `eval`, carrying the run), in one insert. The turn is
 * the run's own call, so it is not looked up (its ledger row may still be on its way); a score the tenant's config
 * of that name refuses is left out and named in `refused`, so one config cannot fail an evaluation.
 */
export async function recordEvalScores(
  db: Database,
  author: { tenantId: string; evalRunId: string },
  turnId: string,
  scores: EvalTurnScore[],
): Promise<{ written: number; refused: string[] }> {
  if (!scores.length) return { written: 0, refused: [] };
  const names = [...new Set(scores.map((s) => s.name))];
  const configs = await db
    .select()
    .from(scoreConfig)
    .where(
      and(
        eq(scoreConfig.tenantId, author.tenantId),
        inArray(scoreConfig.name, names),
        isNull(scoreConfig.archivedAt),
      ),
    );
  const configOf = new Map(configs.map((c) => [c.name, c]));
  const [turn] = await db
    .select(TURN_COPY)
    .from(sysAgentTurn)
    .where(and(eq(sysAgentTurn.tenantId, author.tenantId), eq(sysAgentTurn.id, turnId)))
    .limit(1);
  const refused: string[] = [];
  const rows = [];
  for (const s of scores.slice(0, 50)) {
    const config = configOf.get(s.name) ?? null;
    let stored: ReturnType<typeof storedValue>;
    try {
      stored = storedValue(s.value, config);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      refused.push(`${s.name}: ${error.message}`);
      continue;
    }
    rows.push({
      tenantId: author.tenantId,
      turnId,
      runId: null,
      turnStartedAt: turn?.turnStartedAt ?? null,
      turnModel: turn?.turnModel ?? null,
      name: s.name,
      ...stored,
      comment: s.comment ? maskText(s.comment.slice(0, 2_000)) : null,
      source: "eval" as const,
      evalRunId: author.evalRunId,
      configId: config?.id ?? null,
    });
  }
  if (rows.length) await db.insert(score).values(rows);
  return { written: rows.length, refused };
}
