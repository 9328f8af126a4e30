// Human review: scores on turns and runs (feedback from the drawer, scores from the API and from evaluators), the
// tenant's score configs that validate them, and the ledger's saved views.
import "server-only";
import { sql } from "drizzle-orm";
import {
  boolean,
  check,
  date,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { createdAt, id, updatedAt } from "./columns";
import { tenantRef, userRef } from "./references";
import { appUser } from "./tenants";

export const SCORE_TYPES = ["numeric", "boolean", "categorical"] as const;
export type ScoreType = (typeof SCORE_TYPES)[number];
/** human: a person (the drawer's thumbs, a reviewer); api: a tenant key or an app; eval: an evaluator's scorer. */
export const SCORE_SOURCES = ["human", "api", "eval"] as const;
export type ScoreSource = (typeof SCORE_SOURCES)[number];

// A tenant's definition of a score: its name, type and the values it may take (range or categories).
export const scoreConfig = pgTable(
  "score_config",
  {
    id: id(),
    tenantId: tenantRef(),
    name: text("name").notNull(),
    type: text("type", { enum: SCORE_TYPES }).notNull(),
    // numeric: the allowed range (either end open when null); boolean and categorical: null.
    min: doublePrecision("min"),
    max: doublePrecision("max"),
    // categorical: the allowed values, in the order a form shows them.
    categories: text("categories").array().notNull().default(sql`'{}'::text[]`),
    description: text("description"),
    // Archived configs validate nothing new; their scores stay.
    archivedAt: timestamp("archived_at", { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("score_config_tenant_name_idx").on(t.tenantId, t.name)],
);
export type ScoreConfig = typeof scoreConfig.$inferSelect;

// A score on a turn (a ledger row) or on a run: numeric and boolean in `value` (boolean as 1 / 0), categorical in
// `category`. A person's score of one name on one turn (or run) is one row they change (feedback is changeable);
// api and eval scores are rows of their own.
export const score = pgTable(
  "score",
  {
    id: id(),
    tenantId: tenantRef(),
    // The ledger row scored (sys_agent_turn.id), or null when the score is on a run only.
    turnId: uuid("turn_id"),
    // The run scored (sys_agent_turn.run_id), or the scored turn's run when known.
    runId: text("run_id"),
    // The scored turn's start and served model, copied when the score is written (a turn's are fixed once it has
    // them): the ledger's score filters walk score_tenant_name_turn_idx newest turn first, and quality by model
    // groups the scores without joining the ledger.
    turnStartedAt: timestamp("turn_started_at", { withTimezone: true }),
    turnModel: text("turn_model"),
    name: text("name").notNull(),
    type: text("type", { enum: SCORE_TYPES }).notNull(),
    value: doublePrecision("value"),
    category: text("category"),
    comment: text("comment"),
    source: text("source", { enum: SCORE_SOURCES }).notNull(),
    // Who: the person (human scores, and api scores sent with a session), the API key, the eval run.
    userId: uuid("user_id").references(() => appUser.id, { onDelete: "set null" }),
    apiKeyId: uuid("api_key_id"),
    evalRunId: uuid("eval_run_id"),
    configId: uuid("config_id"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    check("score_target_check", sql`${t.turnId} is not null or ${t.runId} is not null`),
    index("score_tenant_turn_idx").on(t.tenantId, t.turnId).where(sql`${t.turnId} is not null`),
    index("score_tenant_run_idx").on(t.tenantId, t.runId).where(sql`${t.runId} is not null`),
    // The ledger's score filters ("thumbs down", "score x < 0.5") and the dashboards' averages by name.
    index("score_tenant_name_value_idx").on(t.tenantId, t.name, t.value, t.turnId),
    // The ledger's score filters, newest scored turn first (read backward); value and category from the index alone.
    index("score_tenant_name_turn_idx")
      .on(t.tenantId, t.name, t.turnStartedAt, t.turnId, t.value, t.category)
      .where(sql`${t.turnId} is not null`),
    index("score_tenant_name_category_idx")
      .on(t.tenantId, t.name, t.category, t.turnId)
      .where(sql`${t.category} is not null`),
    // One person's score of a name on a turn, or on a run, is one row.
    uniqueIndex("score_human_turn_idx")
      .on(t.tenantId, t.turnId, t.name, t.userId)
      .where(sql`${t.source} = 'human' and ${t.turnId} is not null and ${t.userId} is not null`),
    uniqueIndex("score_human_run_idx")
      .on(t.tenantId, t.runId, t.name, t.userId)
      .where(sql`${t.source} = 'human' and ${t.turnId} is null and ${t.userId} is not null`),
  ],
);
export type Score = typeof score.$inferSelect;

// The daily rollup of scores by the scored turn's UTC day, served model and score name (numeric and boolean values:
// their sum and count), so quality by model over a period reads a few lines per day, never the scores. Kept by a
// trigger on `score` (migration 0037) in the statement that writes the score, so every writer (a vote changed or
// taken back, an eval's batch, retention) keeps it equal to its scores.
export const scoreDaily = pgTable(
  "score_daily",
  {
    tenantId: uuid("tenant_id").notNull(),
    day: date("day").notNull(),
    model: text("model").notNull(),
    name: text("name").notNull(),
    total: doublePrecision("total").notNull().default(0),
    count: integer("count").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.day, t.model, t.name] })],
);

/** A saved view's state: what the page's URL carries (filters, search, time) plus the table's columns and sort. */
export type SavedViewState = {
  filters?: Record<string, string>;
  q?: string;
  /** The page's segment tab (its value), when the view picks one. */
  segment?: string;
  columns?: string[];
  hidden?: string[];
  pinned?: string[];
  sort?: { field: string; dir: "asc" | "desc" };
};

// Saved views of the schema pages (ledger, audit, runs…): a user's own, or shared with the tenant by an admin;
// one default per page for the tenant (shared) and one per user (their own, which wins).
export const savedView = pgTable(
  "saved_view",
  {
    id: id(),
    tenantId: tenantRef(),
    userId: userRef(),
    // The schema page it belongs to (schemas/<page>.schema.json's id).
    page: text("page").notNull(),
    name: text("name").notNull(),
    shared: boolean("shared").notNull().default(false),
    isDefault: boolean("is_default").notNull().default(false),
    state: jsonb("state").$type<SavedViewState>().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("saved_view_tenant_page_idx").on(t.tenantId, t.page),
    uniqueIndex("saved_view_name_idx").on(t.tenantId, t.page, t.userId, t.name),
    uniqueIndex("saved_view_tenant_default_idx")
      .on(t.tenantId, t.page)
      .where(sql`${t.shared} and ${t.isDefault}`),
    uniqueIndex("saved_view_user_default_idx")
      .on(t.tenantId, t.userId, t.page)
      .where(sql`not ${t.shared} and ${t.isDefault}`),
  ],
);
export type SavedView = typeof savedView.$inferSelect;
