// The governance store: the usage ledger, the audit trail, the daily rollup and the processes running turns.
import "server-only";
import { sql } from "drizzle-orm";
import {
  bigint,
  date,
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
import { v7 as uuidv7 } from "uuid";
import { createdAt } from "./columns";

/**
 * Where a turn came from: the drawer, a /v1 call, a schedule, a prompt's playground, an evaluation run, a tool
 * call over /mcp, or a guardrail's model check. A text column without a check: a new source needs no migration.
 */
export const TURN_SOURCES = ["drawer", "api", "schedule", "playground", "eval", "mcp", "guardrail"] as const;
/** What a call's guardrail rules did, strongest first last (lib/gateway/types.ts GuardrailVerdict). */
export const GUARDRAIL_VERDICTS = ["passed", "logged", "warned", "redacted", "blocked"] as const;
export const TURN_STATUSES = ["running", "success", "failed", "stopped", "limit", "interrupted"] as const;
/** How a turn's cost was reached (lib/gateway/types.ts CostStatus): priced, unpriced (cost unknown) or assumed. */
export const COST_STATUSES = ["priced", "unpriced", "assumed"] as const;
export type TurnStatusValue = (typeof TURN_STATUSES)[number];

// The usage ledger: one row per turn, written as running at the start and closed in a finally.
export const sysAgentTurn = pgTable(
  "sys_agent_turn",
  {
    // Unique on its own in practice (UUIDv7), but the primary key of a partitioned table includes its partition
    // key (db/partitions.ts), so it is (id, started_at).
    id: uuid("id").notNull(),
    tenantId: uuid("tenant_id").notNull(),
    userId: uuid("user_id"),
    // No foreign key: the ledger outlives a deleted conversation.
    conversationId: uuid("conversation_id"),
    source: text("source", { enum: TURN_SOURCES }).notNull(),
    // The API key of an API call (no foreign key: revoked or deleted keys keep their history).
    apiKeyId: uuid("api_key_id"),
    requestedModel: text("requested_model").notNull(),
    servedProvider: text("served_provider"),
    servedAdapter: text("served_adapter"),
    servedModel: text("served_model"),
    attempts: integer("attempts").notNull().default(0),
    fallbackIndex: integer("fallback_index"),
    // The alias's routing strategy when it is not plain fallback (weighted, least-latency…); null costs nothing.
    routing: text("routing"),
    // An images or audio call's billed units ({images, imageSize, imageQuality} | {seconds} | {characters}).
    units: jsonb("units").$type<{
      images?: number;
      imageSize?: string;
      imageQuality?: string;
      seconds?: number;
      characters?: number;
    }>(),
    // What the tenant's guardrail rules made of the call (passed, logged, warned, redacted, blocked); null: none applied.
    guardrail: text("guardrail", { enum: GUARDRAIL_VERDICTS }),
    inputTokens: integer("input_tokens").notNull().default(0),
    cachedInputTokens: integer("cached_input_tokens").notNull().default(0),
    cacheWriteTokens: integer("cache_write_tokens").notNull().default(0),
    outputTokens: integer("output_tokens").notNull().default(0),
    reasoningTokens: integer("reasoning_tokens").notNull().default(0),
    cost: numeric("cost", { precision: 20, scale: 10 }),
    // `unpriced`: the served model had no price, so `cost` is null (unknown), never 0; `assumed`: priced at
    // the tenant admin's assumed price for it (tenant_model_price).
    costStatus: text("cost_status", { enum: COST_STATUSES }).notNull().default("priced"),
    toolTrace: jsonb("tool_trace")
      .$type<{ name: string; durationMs: number; ok: boolean; error?: string }[]>()
      .notNull()
      .default([]),
    rounds: integer("rounds").notNull().default(0),
    startedAt: timestamp("started_at", { withTimezone: true }).notNull().defaultNow(),
    firstTokenMs: integer("first_token_ms"),
    latencyMs: integer("latency_ms"),
    status: text("status", { enum: TURN_STATUSES }).notNull().default("running"),
    errorClass: text("error_class"),
    errorMessage: text("error_message"),
    // How many of the turn's model calls were answered from the response cache (at no cost).
    cacheHits: integer("cache_hits").notNull().default(0),
    // The process (instance.id) running the turn while it is `running`; null for rows it never ran (API
    // batches, sample history) and for rows written before instances existed (swept by age).
    instanceId: uuid("instance_id"),
    // Who the calling app says asked (API calls only; masked and bounded, see lib/governance/attribution.ts).
    endUser: text("end_user"),
    // text[] rather than jsonb: `tags @> array[...]` filters alike on PostgreSQL and PGlite, with a GIN index.
    tags: text("tags").array().notNull().default(sql`'{}'::text[]`),
    requestMetadata: jsonb("request_metadata").$type<Record<string, string>>(),
    // The stored prompt (prompt store) the turn used, by name and version; null when it used none.
    promptName: text("prompt_name"),
    promptVersion: integer("prompt_version"),
    // The run the call belongs to: the caller's x-tollgate-run-id (or metadata.run_id) on /v1 and /mcp, the turn's
    // own id for a drawer turn; null for a call sent without one (lib/turns/run-id.ts).
    runId: text("run_id"),
    // The skills the turn loaded (skill_load), by name, with the version each got at the same place in
    // skill_versions; text[] like tags, so "turns that used skill X" is `skills @> array[X]` with a GIN index.
    skills: text("skills").array().notNull().default(sql`'{}'::text[]`),
    skillVersions: integer("skill_versions").array().notNull().default(sql`'{}'::integer[]`),
  },
  (t) => [
    primaryKey({ name: "sys_agent_turn_pkey", columns: [t.id, t.startedAt] }),
    index("sys_agent_turn_tenant_started_idx").on(t.tenantId, t.startedAt),
    // The ledger's end-user and API-key filters, newest first; partial, so chat turns do not pay for them.
    index("sys_agent_turn_tenant_end_user_idx")
      .on(t.tenantId, t.endUser, t.startedAt)
      .where(sql`${t.endUser} is not null`),
    index("sys_agent_turn_tenant_api_key_idx")
      .on(t.tenantId, t.apiKeyId, t.startedAt)
      .where(sql`${t.apiKeyId} is not null`),
    // The ledger's tag filter; partial, since most calls carry no tag and GIN indexes an empty array too (about
    // 30 bytes a turn). The filter repeats the predicate (features/admin-tables/server/providers/agent-turns.ts).
    index("sys_agent_turn_tags_idx").using("gin", t.tags).where(sql`cardinality(${t.tags}) > 0`),
    // The ledger's skill filter; partial like the tags index, since most turns load no skill.
    index("sys_agent_turn_skills_idx").using("gin", t.skills).where(sql`cardinality(${t.skills}) > 0`),
    // Unpriced and assumed usage on the ledger and the cost dashboard; partial, since nearly every call is priced.
    index("sys_agent_turn_tenant_cost_status_idx")
      .on(t.tenantId, t.startedAt)
      .where(sql`${t.costStatus} <> 'priced'`),
    // The ledger's status segments. Partial: about nine calls in ten succeed, and "success" alone is the
    // tenant-and-time index with a filter, so the success rows (most of the table) are not indexed twice.
    index("sys_agent_turn_tenant_status_idx")
      .on(t.tenantId, t.status, t.startedAt)
      .where(sql`${t.status} <> 'success'`),
    // The status segment with the model filter, the ledger's most common combination; partial, as above.
    index("sys_agent_turn_tenant_status_model_idx")
      .on(t.tenantId, t.status, t.servedModel, t.startedAt)
      .where(sql`${t.status} <> 'success'`),
    // The model filter with any status, and with "success" (the rows the two partial indexes above leave out).
    index("sys_agent_turn_tenant_model_idx").on(t.tenantId, t.servedModel, t.startedAt),
    index("sys_agent_turn_started_idx").on(t.startedAt),
    // A prompt's versions compared on the cost dashboard, and the ledger's prompt filter; partial.
    index("sys_agent_turn_tenant_prompt_idx")
      .on(t.tenantId, t.promptName, t.promptVersion, t.startedAt)
      .where(sql`${t.promptName} is not null`),
    // A run's calls in order (the Runs page and the run replay); partial, since most API calls carry no run id.
    index("sys_agent_turn_tenant_run_idx")
      .on(t.tenantId, t.runId, t.startedAt)
      .where(sql`${t.runId} is not null`),
    // The turns still running (interrupted-turn recovery, the running count): a handful of rows, not the ledger.
    index("sys_agent_turn_running_idx").on(t.startedAt).where(sql`${t.status} = 'running'`),
  ],
);
export type SysAgentTurn = typeof sysAgentTurn.$inferSelect;

export const AUDIT_TYPES = [
  "request",
  // A drawer or schedule turn's round trips to the model and its answer as shown (never written for /v1 calls).
  "model_call",
  "answer",
  "tool_call",
  "tool_result",
  // The user's Approve / Deny on a call that needed it (or no answer in time), in a drawer turn.
  "confirmation",
  "guardrail",
  "fallback",
  "error",
  "stop",
] as const;
export type AuditType = (typeof AUDIT_TYPES)[number];

// The audit trail: ordered (turn, seq) events with masked payloads; it outlives a deleted conversation.
export const sysAgentAudit = pgTable(
  "sys_agent_audit",
  {
    // The primary key is (id, created_at): a partitioned table's includes its partition key (db/partitions.ts).
    id: uuid("id")
      .notNull()
      .$defaultFn(() => uuidv7()),
    tenantId: uuid("tenant_id").notNull(),
    userId: uuid("user_id"),
    turnId: uuid("turn_id").notNull(),
    conversationId: uuid("conversation_id"),
    seq: integer("seq").notNull(),
    type: text("type", { enum: AUDIT_TYPES }).notNull(),
    payload: jsonb("payload").$type<Record<string, unknown>>().notNull(),
    createdAt: createdAt(),
    // The tamper-evident chain (lib/governance/audit-chain.ts): the event's place in its tenant-month chain, the
    // SHA-256 of its content with the previous event's hash, and that previous hash, as lowercase hex (what the
    // CLI prints and an operator exports; it also rides the batch writer's JSON parameter as it is). Null on
    // events written before hashing began.
    chainSeq: bigint("chain_seq", { mode: "number" }),
    hash: text("hash"),
    prevHash: text("prev_hash"),
  },
  (t) => [
    primaryKey({ name: "sys_agent_audit_pkey", columns: [t.id, t.createdAt] }),
    // A turn's events in order. Not unique: a unique index of a partitioned table must hold its partition key,
    // and (turn, seq, created_at) would promise nothing; the writers number events once (lib/governance).
    index("sys_agent_audit_turn_seq_idx").on(t.turnId, t.seq),
    index("sys_agent_audit_tenant_created_idx").on(t.tenantId, t.createdAt),
    // The event-type segment: without it a rare or absent type scans the whole range (bench: 472 ms → 1 ms).
    index("sys_agent_audit_tenant_type_created_idx").on(t.tenantId, t.type, t.createdAt),
    index("sys_agent_audit_created_idx").on(t.createdAt),
  ],
);
export type SysAgentAudit = typeof sysAgentAudit.$inferSelect;

// The head of each tenant-month audit chain (UTC month of the events' created_at): the last event's place, hash
// and time, locked by the writer for the length of its batch, so concurrent writers append one after another.
// `startSeq`/`startHash` say where the kept part of the chain starts after retention deleted its first days
// (0 and null: from the genesis value).
export const sysAgentAuditChain = pgTable(
  "sys_agent_audit_chain",
  {
    tenantId: uuid("tenant_id").notNull(),
    month: text("month").notNull(),
    seq: bigint("seq", { mode: "number" }).notNull().default(0),
    hash: text("hash").notNull(),
    lastAt: timestamp("last_at", { withTimezone: true }).notNull(),
    startSeq: bigint("start_seq", { mode: "number" }).notNull().default(0),
    startHash: text("start_hash"),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.month] })],
);
export type SysAgentAuditChain = typeof sysAgentAuditChain.$inferSelect;

// One row per running app process: its id is minted at start and stamped on the turns it runs; the heartbeat
// moves every few seconds. A running turn whose instance has no recent heartbeat was left by a dead process.
export const instance = pgTable("instance", {
  id: uuid("id").primaryKey(),
  host: text("host").notNull(),
  pid: integer("pid").notNull(),
  // Same value for every process sharing one PID namespace on one boot (Linux), so a process can tell
  // whether another row's pid is one it can check; null elsewhere.
  processSpace: text("process_space"),
  startedAt: timestamp("started_at", { withTimezone: true }).notNull().defaultNow(),
  heartbeatAt: timestamp("heartbeat_at", { withTimezone: true }).notNull().defaultNow(),
});
export type Instance = typeof instance.$inferSelect;

// Daily usage rollup, updated in the transaction that closes a turn, so dashboards never scan the ledger.
export const usageDaily = pgTable(
  "usage_daily",
  {
    tenantId: uuid("tenant_id").notNull(),
    day: date("day").notNull(),
    userId: uuid("user_id").notNull(),
    source: text("source").notNull(),
    servedAdapter: text("served_adapter").notNull(),
    servedModel: text("served_model").notNull(),
    requests: integer("requests").notNull().default(0),
    failures: integer("failures").notNull().default(0),
    inputTokens: bigint("input_tokens", { mode: "number" }).notNull().default(0),
    cachedInputTokens: bigint("cached_input_tokens", { mode: "number" }).notNull().default(0),
    cacheWriteTokens: bigint("cache_write_tokens", { mode: "number" }).notNull().default(0),
    outputTokens: bigint("output_tokens", { mode: "number" }).notNull().default(0),
    reasoningTokens: bigint("reasoning_tokens", { mode: "number" }).notNull().default(0),
    cost: numeric("cost", { precision: 20, scale: 10 }).notNull().default("0"),
    latencyMsTotal: bigint("latency_ms_total", { mode: "number" }).notNull().default(0),
    // Calls whose served model had no price (cost_status unpriced): their cost is unknown, counted 0 in `cost`.
    unpricedRequests: integer("unpriced_requests").notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.day, t.userId, t.source, t.servedAdapter, t.servedModel] }),
    index("usage_daily_day_idx").on(t.day),
  ],
);
