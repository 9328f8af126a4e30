// The request pipeline: rate limits and budgets, assumed prices, shared counters, the response cache.
import "server-only";
import {
  bigint,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uuid,
} from "drizzle-orm/pg-core";
import { createdAt, updatedAt } from "./columns";
import { tenantRef } from "./references";

export const LIMIT_SCOPES = ["tenant", "key", "user", "end_user_template"] as const;
export type LimitScope = (typeof LIMIT_SCOPES)[number];

// Rate limits and budgets of a tenant, of one of its API keys, or of one of its users (drawer turns); or a
// template every end user of an API key's calls (or of the tenant's, under any key) is held to, each on its own
// counters (`end_user_template`, subject: the key, or the tenant). A null column is no limit. Budgets are USD
// per UTC day and month: past the soft one a call is let through with a warning, past the hard one it is refused.
export const usageLimit = pgTable(
  "usage_limit",
  {
    tenantId: tenantRef(),
    scope: text("scope", { enum: LIMIT_SCOPES }).notNull(),
    // The tenant's id for the tenant scope (and the tenant's end-user template), else the key's or the user's id.
    subjectId: uuid("subject_id").notNull(),
    requestsPerMinute: integer("requests_per_minute"),
    tokensPerMinute: integer("tokens_per_minute"),
    dailySoftUsd: numeric("daily_soft_usd", { precision: 20, scale: 10 }),
    dailyHardUsd: numeric("daily_hard_usd", { precision: 20, scale: 10 }),
    monthlySoftUsd: numeric("monthly_soft_usd", { precision: 20, scale: 10 }),
    monthlyHardUsd: numeric("monthly_hard_usd", { precision: 20, scale: 10 }),
    updatedAt: updatedAt(),
    updatedBy: uuid("updated_by"),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.scope, t.subjectId] })],
);
export type UsageLimit = typeof usageLimit.$inferSelect;

// Prices a tenant admin assumed for models the price catalog does not know (USD per 1M tokens), so calls they
// serve can be counted against hard budgets. Keyed by the candidate's provider name and model, as in the gateway
// config.
export const tenantModelPrice = pgTable(
  "tenant_model_price",
  {
    tenantId: tenantRef(),
    provider: text("provider").notNull(),
    model: text("model").notNull(),
    input: numeric("input", { precision: 20, scale: 10 }).notNull(),
    cachedInput: numeric("cached_input", { precision: 20, scale: 10 }),
    cacheWrite: numeric("cache_write", { precision: 20, scale: 10 }),
    output: numeric("output", { precision: 20, scale: 10 }).notNull(),
    updatedAt: updatedAt(),
    updatedBy: uuid("updated_by"),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.provider, t.model] })],
);
export type TenantModelPrice = typeof tenantModelPrice.$inferSelect;

// Shared counters (requests and tokens per minute window, USD spent and reserved per day and month, in
// nano-dollars) when no REDIS_URL is set. Keys name their window, so a new window is a new row.
/** An instance's lease on a counter, as usage_counter.leases holds it. */
export type CounterLeases = Record<string, { a: number; s: number; e: number }>;

export const usageCounter = pgTable(
  "usage_counter",
  {
    tenantId: uuid("tenant_id").notNull(),
    key: text("key").notNull(),
    /** Spent, plus what instances hold leased and unspent (lib/pipeline/allowances.ts). */
    value: bigint("value", { mode: "number" }).notNull().default(0),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    /**
     * The leases on this counter, by instance id: `a` the allowance it holds unspent, `s` the sequence number of
     * its last applied lease operation (a retried one is applied once), `e` when the lease lapses (epoch ms).
     * Written only by tollgate_lease() (migration 0019) and the Redis script of the same logic.
     */
    leases: jsonb("leases").$type<CounterLeases>().notNull().default({}),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.key] }), index("usage_counter_expires_idx").on(t.expiresAt)],
);

// Exact-match response cache when no REDIS_URL is set: the hash of the request, per tenant.
export const responseCache = pgTable(
  "response_cache",
  {
    tenantId: uuid("tenant_id").notNull(),
    key: text("key").notNull(),
    model: text("model").notNull(),
    response: jsonb("response").$type<Record<string, unknown>>().notNull(),
    createdAt: createdAt(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.key] }), index("response_cache_expires_idx").on(t.expiresAt)],
);

export const RUN_CEILING_SCOPES = ["tenant", "key"] as const;
export type RunCeilingScope = (typeof RUN_CEILING_SCOPES)[number];

// Ceilings on one agent run (the calls that share a run id: a drawer turn, or the /v1 and /mcp calls sent with
// one x-tollgate-run-id), set for every run of the tenant or of one API key: USD, model calls, tokens and wall
// time from the run's first call. A null column is no ceiling. Enforced on shared counters per run, like budgets.
export const runCeiling = pgTable(
  "run_ceiling",
  {
    tenantId: tenantRef(),
    scope: text("scope", { enum: RUN_CEILING_SCOPES }).notNull(),
    // The tenant's id for the tenant scope, else the key's id.
    subjectId: uuid("subject_id").notNull(),
    maxUsd: numeric("max_usd", { precision: 20, scale: 10 }),
    maxCalls: integer("max_calls"),
    maxTokens: bigint("max_tokens", { mode: "number" }),
    maxSeconds: integer("max_seconds"),
    updatedAt: updatedAt(),
    updatedBy: uuid("updated_by"),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.scope, t.subjectId] })],
);
export type RunCeiling = typeof runCeiling.$inferSelect;

// When each run under a wall-time ceiling began: the first call of the run id to reach any instance inserts it
// (ON CONFLICT DO NOTHING), so every replica measures the run from the same instant. Swept after a week.
export const runStart = pgTable(
  "run_start",
  {
    tenantId: uuid("tenant_id").notNull(),
    runId: text("run_id").notNull(),
    startedAt: timestamp("started_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.runId] }), index("run_start_started_idx").on(t.startedAt)],
);
