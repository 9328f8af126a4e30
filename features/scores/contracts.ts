// What the scores routes take and answer (POST /api/scores, POST /v1/scores, the score configs), shared by the
// routes, the drawer's feedback, the ledger and the OpenAPI document. Browser-safe: zod and plain types only.
import { z } from "@/lib/core/schema/zod";

export const SCORE_TYPES = ["numeric", "boolean", "categorical"] as const;
export type ScoreType = (typeof SCORE_TYPES)[number];
export const SCORE_SOURCES = ["human", "api", "eval"] as const;
export type ScoreSource = (typeof SCORE_SOURCES)[number];

/** The drawer's thumbs up / down: a boolean score of this name, one per person and answer (changeable). */
export const FEEDBACK_SCORE = "thumbs";

const NAME_MARKS = new Set(["_", ".", ":", "-"]);
const isAlnum = (c: string) => (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || (c >= "0" && c <= "9");

/** Why `name` cannot be a score's name, or null when it can (checked character by character: no regex). */
export function scoreNameProblem(name: string): string | null {
  if (!name) return "a score needs a name";
  if (name.length > 64) return "a score name is at most 64 characters";
  if (!isAlnum(name[0]!)) return "a score name starts with a letter or a digit";
  for (const c of name)
    if (!isAlnum(c) && !NAME_MARKS.has(c)) return "a score name is letters, digits and _ . : -";
  return null;
}

/** A score's or config's name: what filters and dashboards group by. */
export const scoreName = z
  .string()
  .trim()
  .superRefine((name, ctx) => {
    const problem = scoreNameProblem(name);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });

export const SCORE_COMMENT_MAX = 2_000;
export const SCORE_CATEGORY_MAX = 100;

/**
 * A score to put on a turn (a ledger row's id) or on a run (its run id): a number, true / false, or a category.
 * A person's score of one name on one turn is theirs to change: sending it again replaces it.
 */
export const scoreInput = z
  .strictObject({
    turnId: z.uuid("a turn id (a ledger row's id)").optional(),
    runId: z.string().trim().min(1).max(200, "a run id is at most 200 characters").optional(),
    name: scoreName,
    value: z.union([
      z.number().refine(Number.isFinite, "a number, not NaN or infinite"),
      z.boolean(),
      z.string().trim().min(1, "a category must not be empty").max(SCORE_CATEGORY_MAX),
    ]),
    comment: z
      .string()
      .trim()
      .max(SCORE_COMMENT_MAX, `a comment is at most ${SCORE_COMMENT_MAX} characters`)
      .optional(),
    /** Who says so: defaults to `human` for a signed-in person and `api` for a tenant key. */
    source: z.enum(SCORE_SOURCES).optional(),
  })
  .refine((s) => s.turnId || s.runId, {
    message: "a score is on a turn (turnId) or a run (runId)",
    path: ["turnId"],
  });
export type ScoreInput = z.infer<typeof scoreInput>;

/** GET /api/scores: the scores of one turn or one run. */
export const scoresQuery = z
  .strictObject({
    turnId: z.uuid("a turn id (a ledger row's id)").optional(),
    runId: z.string().trim().min(1).max(200, "a run id is at most 200 characters").optional(),
  })
  .refine((q) => Boolean(q.turnId) !== Boolean(q.runId), {
    message: "give turnId or runId (one of them)",
    path: ["turnId"],
  });

/** A tenant's definition of a score, which validates every score of that name. */
export const scoreConfigInput = z
  .strictObject({
    name: scoreName,
    type: z.enum(SCORE_TYPES),
    min: z.number().refine(Number.isFinite, "a finite number").nullable().optional(),
    max: z.number().refine(Number.isFinite, "a finite number").nullable().optional(),
    categories: z
      .array(z.string().trim().min(1, "a category must not be empty").max(SCORE_CATEGORY_MAX))
      .max(50, "at most 50 categories")
      .optional(),
    description: z.string().trim().max(500).optional(),
  })
  .superRefine((c, ctx) => {
    if (c.type === "numeric" && c.min != null && c.max != null && c.min > c.max)
      ctx.addIssue({ code: "custom", path: ["max"], message: "max must not be below min" });
    if (c.type !== "numeric" && (c.min != null || c.max != null))
      ctx.addIssue({ code: "custom", path: ["min"], message: `a ${c.type} score has no range` });
    if (c.type === "categorical" && !c.categories?.length)
      ctx.addIssue({
        code: "custom",
        path: ["categories"],
        message: "a categorical score needs its categories",
      });
    if (c.type !== "categorical" && c.categories?.length)
      ctx.addIssue({ code: "custom", path: ["categories"], message: `a ${c.type} score has no categories` });
    if (c.name === FEEDBACK_SCORE && c.type !== "boolean")
      ctx.addIssue({
        code: "custom",
        path: ["type"],
        message: `"${FEEDBACK_SCORE}" is the drawer's thumbs up / down: its config is boolean`,
      });
    if (c.categories && new Set(c.categories).size !== c.categories.length)
      ctx.addIssue({ code: "custom", path: ["categories"], message: "each category once" });
  });
export type ScoreConfigInput = z.infer<typeof scoreConfigInput>;

/** What a config's PATCH may change: its name and type are fixed (its scores were validated by them). */
export const scoreConfigPatch = z.strictObject({
  min: z.number().refine(Number.isFinite, "a finite number").nullable().optional(),
  max: z.number().refine(Number.isFinite, "a finite number").nullable().optional(),
  categories: z
    .array(z.string().trim().min(1, "a category must not be empty").max(SCORE_CATEGORY_MAX))
    .max(50, "at most 50 categories")
    .optional(),
  description: z.string().trim().max(500).nullable().optional(),
});
export type ScoreConfigPatch = z.infer<typeof scoreConfigPatch>;

/** A score config as the routes answer it. */
export type ScoreConfigView = {
  id: string;
  name: string;
  type: ScoreType;
  min: number | null;
  max: number | null;
  categories: string[];
  description: string | null;
  /** When it stopped validating new scores (ISO), or null while live. */
  archivedAt: string | null;
  createdAt: string;
  updatedAt: string;
};

/** A score as the routes answer it. */
export type ScoreView = {
  id: string;
  turnId: string | null;
  runId: string | null;
  name: string;
  type: ScoreType;
  /** numeric: the number; boolean: true / false; categorical: the category. */
  value: number | boolean | string | null;
  comment: string | null;
  source: ScoreSource;
  userId: string | null;
  apiKeyId: string | null;
  evalRunId: string | null;
  createdAt: string;
  updatedAt: string;
};

/** The ledger's feedback filter: turns with a thumbs up, a thumbs down, or either. */
export const FEEDBACK_FILTERS = ["up", "down", "any"] as const;
export type FeedbackFilter = (typeof FEEDBACK_FILTERS)[number];

export const SCORE_FILTER_OPERATORS = ["<", "<=", ">", ">=", "=", "!="] as const;
export type ScoreFilterOperator = (typeof SCORE_FILTER_OPERATORS)[number];

/**
 * The ledger's score filter, parsed: `helpfulness<0.5`, `stars>=3`, `verdict=good`, `passed=true`. A number on
 * the right compares the value (< <= > >= = !=); true / false a boolean score; anything else a category (= and !=
 * only).
 */
export type ScoreFilter =
  | { name: string; op: ScoreFilterOperator; value: number }
  | { name: string; op: "=" | "!="; category: string };

const OPERATOR_START = new Set(["<", ">", "=", "!"]);

/** Parses a score filter (plain string code, no regex), or says what is wrong with it. */
export function parseScoreFilter(text: string): { filter: ScoreFilter } | { problem: string } {
  const raw = text.trim();
  if (raw.length > 200) return { problem: "is at most 200 characters" };
  let at = -1;
  for (let i = 0; i < raw.length; i++)
    if (OPERATOR_START.has(raw[i]!)) {
      at = i;
      break;
    }
  if (at < 0) return { problem: "must be a score name, an operator and a value, such as helpfulness<0.5" };
  const name = raw.slice(0, at).trim();
  const two = raw.slice(at, at + 2);
  const op = (SCORE_FILTER_OPERATORS as readonly string[]).includes(two) ? two : raw[at]!;
  if (!(SCORE_FILTER_OPERATORS as readonly string[]).includes(op))
    return { problem: `has no operator "${op}": use one of ${SCORE_FILTER_OPERATORS.join(" ")}` };
  const right = raw.slice(at + op.length).trim();
  const nameProblem = scoreNameProblem(name);
  if (nameProblem) return { problem: `: ${nameProblem}` };
  if (!right) return { problem: `needs a value after "${op}"` };
  if (OPERATOR_START.has(right[0]!)) return { problem: `has one operator only: "${raw}"` };
  const operator = op as ScoreFilterOperator;
  const number = right === "true" ? 1 : right === "false" ? 0 : Number(right);
  if (Number.isFinite(number)) return { filter: { name, op: operator, value: number } };
  if (operator !== "=" && operator !== "!=")
    return { problem: `compares a number with ${operator}: "${right}" is not one` };
  if (right.length > SCORE_CATEGORY_MAX)
    return { problem: `a category is at most ${SCORE_CATEGORY_MAX} characters` };
  return { filter: { name, op: operator, category: right } };
}

/** GET /api/scores/quality: the last `days` days (1 to 90, 7 by default). */
export const qualityQuery = z.strictObject({
  days: z.coerce.number().int().min(1, "at least 1 day").max(90, "at most 90 days").default(7),
});

/** One model's calls, cost and scores over the period, for the cost dashboard. */
export type ModelQuality = {
  model: string;
  calls: number;
  /** Exact decimal strings (USD). */
  cost: string;
  costPerCall: string | null;
  /** Each score's mean over the model's calls (thumbs: the share of thumbs up), most given first. */
  scores: { name: string; mean: number; count: number }[];
};
