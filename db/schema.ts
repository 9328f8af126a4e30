import "server-only";
import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  customType,
  date,
  doublePrecision,
  index,
  integer,
  jsonb,
  numeric,
  pgEnum,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { v7 as uuidv7 } from "uuid";

const id = () =>
  uuid("id")
    .primaryKey()
    .$defaultFn(() => uuidv7());
const createdAt = () => timestamp("created_at", { withTimezone: true }).notNull().defaultNow();
const updatedAt = () =>
  timestamp("updated_at", { withTimezone: true })
    .notNull()
    .defaultNow()
    .$onUpdate(() => new Date());

export const membershipRole = pgEnum("membership_role", ["member", "admin"]);
export type MembershipRole = (typeof membershipRole.enumValues)[number];

export const tenant = pgTable("tenant", {
  id: id(),
  name: text("name").notNull(),
  slug: text("slug").notNull().unique(),
  disabled: boolean("disabled").notNull().default(false),
  // How long ledger, audit and rollup rows are kept; conversations are never deleted by retention.
  retentionDays: integer("retention_days").notNull().default(90),
  // The response cache: the model aliases whose exact repeats are answered from the cache, and for how long.
  cacheAliases: jsonb("cache_aliases").$type<string[]>().notNull().default([]),
  cacheTtlSeconds: integer("cache_ttl_seconds").notNull().default(3600),
  // Under a hard budget, a call that sets no max_tokens is sent with this many, so its reservation bounds it.
  maxOutputTokensDefault: integer("max_output_tokens_default").notNull().default(4096),
  // What web_fetch may reach for this tenant: nothing (off), the listed domains and their subdomains, or any
  // public address (the address guard always applies).
  webFetchMode: text("web_fetch_mode").$type<"off" | "allowlist" | "any">().notNull().default("any"),
  webFetchDomains: jsonb("web_fetch_domains").$type<string[]>().notNull().default([]),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});
export type Tenant = typeof tenant.$inferSelect;

export const appUser = pgTable(
  "app_user",
  {
    id: id(),
    email: text("email").notNull(),
    name: text("name").notNull(),
    // Null for users who only sign in through single sign-on.
    passwordHash: text("password_hash"),
    isSuperAdmin: boolean("is_super_admin").notNull().default(false),
    disabled: boolean("disabled").notNull().default(false),
    // Sessions carry the epoch they were issued in; raising it signs out every other session at once.
    sessionEpoch: integer("session_epoch").notNull().default(0),
    // Whether whoever holds this account proved the email (operator, demo seed, an identity provider's verified
    // claim). An account made from an invitation link is not: anyone holding the link could have made it.
    emailVerified: boolean("email_verified").notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("app_user_email_lower_idx").on(sql`lower(${t.email})`)],
);
export type AppUser = typeof appUser.$inferSelect;

// Single sign-on identities: the identity provider's subject for an account. Once linked, a sign-in from that
// issuer finds the account by subject, never by email again.
export const userIdentity = pgTable(
  "user_identity",
  {
    issuer: text("issuer").notNull(),
    subject: text("subject").notNull(),
    userId: uuid("user_id")
      .notNull()
      .references(() => appUser.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.issuer, t.subject] }), index("user_identity_user_idx").on(t.userId)],
);
export type UserIdentity = typeof userIdentity.$inferSelect;

// Email domains whose people may join a tenant as members on their first single sign-on. The platform super
// admin grants them; a domain belongs to at most one tenant.
export const tenantSsoDomain = pgTable(
  "tenant_sso_domain",
  {
    domain: text("domain").primaryKey(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenant.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
  },
  (t) => [index("tenant_sso_domain_tenant_idx").on(t.tenantId)],
);

// Most tables belong to a tenant (and many to a user); deleting the tenant or user deletes their rows.
const tenantRef = () =>
  uuid("tenant_id")
    .notNull()
    .references(() => tenant.id, { onDelete: "cascade" });
const userRef = () =>
  uuid("user_id")
    .notNull()
    .references(() => appUser.id, { onDelete: "cascade" });

export const membership = pgTable(
  "membership",
  {
    tenantId: tenantRef(),
    userId: userRef(),
    role: membershipRole("role").notNull().default("member"),
    // A member an admin lets edit prompts: create versions and move labels other than `production`.
    promptEditor: boolean("prompt_editor").notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.userId] }), index("membership_user_idx").on(t.userId)],
);
export type Membership = typeof membership.$inferSelect;

// Invitations to join a tenant: a link with a random token (only its SHA-256 is kept), used once, until it expires.
export const invitation = pgTable(
  "invitation",
  {
    id: id(),
    tenantId: tenantRef(),
    email: text("email").notNull(),
    role: membershipRole("role").notNull().default("member"),
    tokenHash: text("token_hash").notNull().unique(),
    invitedBy: uuid("invited_by").notNull(),
    createdAt: createdAt(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    acceptedAt: timestamp("accepted_at", { withTimezone: true }),
    acceptedBy: uuid("accepted_by"),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
  },
  (t) => [index("invitation_tenant_idx").on(t.tenantId, t.createdAt)],
);
export type Invitation = typeof invitation.$inferSelect;

// Every change an admin makes (tenants, members, roles, invitations, API keys, limits, budgets, retention,
// sign-in settings): who, what, before and after (masked), when, and the request it came with.
export const adminChange = pgTable(
  "admin_change",
  {
    id: id(),
    tenantId: uuid("tenant_id").notNull(),
    actorId: uuid("actor_id").notNull(),
    actorEmail: text("actor_email").notNull(),
    action: text("action").notNull(),
    objectType: text("object_type").notNull(),
    objectId: text("object_id").notNull(),
    before: jsonb("before").$type<Record<string, unknown> | null>(),
    after: jsonb("after").$type<Record<string, unknown> | null>(),
    requestId: text("request_id"),
    createdAt: createdAt(),
  },
  (t) => [
    index("admin_change_tenant_created_idx").on(t.tenantId, t.createdAt),
    index("admin_change_created_idx").on(t.createdAt),
  ],
);
export type AdminChange = typeof adminChange.$inferSelect;

// Failed sign-in counters, keyed by "email:<address>" or "ip:<address>"; shared by every app instance.
export const authThrottle = pgTable("auth_throttle", {
  key: text("key").primaryKey(),
  failures: integer("failures").notNull().default(0),
  windowStartedAt: timestamp("window_started_at", { withTimezone: true }).notNull().defaultNow(),
  blockedUntil: timestamp("blocked_until", { withTimezone: true }),
});

// One row per signed-in session (the cookie's `sid`); sign-out revokes it, and the guards refuse a revoked or
// unknown one. Users are not tenant-scoped, so neither are their sessions.
export const authSession = pgTable(
  "auth_session",
  {
    id: id(),
    userId: uuid("user_id")
      .notNull()
      .references(() => appUser.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
    lastSeenAt: timestamp("last_seen_at", { withTimezone: true }).notNull().defaultNow(),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
    userAgent: text("user_agent"),
    ip: text("ip"),
  },
  (t) => [index("auth_session_user_idx").on(t.userId, t.lastSeenAt)],
);
export type AuthSession = typeof authSession.$inferSelect;

// --- agent runtime -------------------------------------------------------------------------------------------

// Notes the memory tool keeps per user within a tenant.
export const agentMemory = pgTable(
  "agent_memory",
  {
    id: id(),
    tenantId: tenantRef(),
    userId: userRef(),
    note: text("note").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("agent_memory_tenant_user_idx").on(t.tenantId, t.userId, t.createdAt)],
);
export type AgentMemory = typeof agentMemory.$inferSelect;

// Scheduled messages (the clock tool): due rows are claimed with a lease, so each fires once across replicas.
export const agentSchedule = pgTable(
  "agent_schedule",
  {
    id: id(),
    tenantId: tenantRef(),
    userId: userRef(),
    conversationId: uuid("conversation_id").notNull(),
    cron: text("cron").notNull(),
    timeZone: text("time_zone").notNull().default("UTC"),
    message: text("message").notNull(),
    model: text("model"),
    enabled: boolean("enabled").notNull().default(true),
    nextRunAt: timestamp("next_run_at", { withTimezone: true }),
    lastRunAt: timestamp("last_run_at", { withTimezone: true }),
    lastStatus: text("last_status"),
    leaseUntil: timestamp("lease_until", { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("agent_schedule_due_idx").on(t.nextRunAt),
    index("agent_schedule_tenant_conversation_idx").on(t.tenantId, t.conversationId),
  ],
);
export type AgentSchedule = typeof agentSchedule.$inferSelect;

// Background tasks (the tasks tool set): queued by a turn, claimed by any instance's runner with a lease
// (FOR UPDATE SKIP LOCKED), so each runs once however many instances run, and survives a restart.
export const TASK_STATUSES = ["queued", "running", "done", "failed", "cancelled"] as const;
export type TaskStatusValue = (typeof TASK_STATUSES)[number];
export const agentTask = pgTable(
  "agent_task",
  {
    id: id(),
    tenantId: tenantRef(),
    conversationId: uuid("conversation_id").notNull(),
    userId: userRef(),
    // The starter's role when the task was started: the task's tools are the ones that role may call.
    role: membershipRole("role").notNull().default("member"),
    kind: text("kind").notNull(),
    input: text("input").notNull(),
    status: text("status", { enum: TASK_STATUSES }).notNull().default("queued"),
    result: text("result"),
    error: text("error"),
    attempts: integer("attempts").notNull().default(0),
    leaseOwner: uuid("lease_owner"),
    leaseUntil: timestamp("lease_until", { withTimezone: true }),
    createdAt: createdAt(),
    startedAt: timestamp("started_at", { withTimezone: true }),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("agent_task_tenant_conversation_idx").on(t.tenantId, t.conversationId, t.createdAt),
    index("agent_task_claim_idx").on(t.status, t.leaseUntil),
  ],
);
export type AgentTask = typeof agentTask.$inferSelect;

// The demo business data behind the orders tool set: per tenant, to show tenant scoping.
export const demoOrder = pgTable(
  "demo_order",
  {
    id: id(),
    tenantId: tenantRef(),
    number: text("number").notNull(),
    customer: text("customer").notNull(),
    status: text("status", { enum: ["open", "shipped", "delivered", "cancelled"] }).notNull(),
    totalUsd: numeric("total_usd", { precision: 12, scale: 2 }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("demo_order_tenant_number_idx").on(t.tenantId, t.number),
    index("demo_order_tenant_status_idx").on(t.tenantId, t.status, t.createdAt),
  ],
);
export type DemoOrder = typeof demoOrder.$inferSelect;

// --- governance store ----------------------------------------------------------------------------------------

export const sysAgentSession = pgTable(
  "sys_agent_session",
  {
    id: id(),
    tenantId: tenantRef(),
    userId: userRef(),
    title: text("title").notNull().default("New conversation"),
    model: text("model"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("sys_agent_session_owner_idx").on(t.tenantId, t.userId, t.updatedAt)],
);
export type SysAgentSession = typeof sysAgentSession.$inferSelect;

export type MessageParts = {
  content: string;
  toolCalls?: { id: string; name: string; args: Record<string, unknown> }[];
  toolCallId?: string;
  name?: string;
  kind?: "display" | "notification";
  data?: Record<string, unknown>;
};

export const sysAgentMessage = pgTable(
  "sys_agent_message",
  {
    // A global sequence keeps messages in the order they were appended, across processes.
    seq: bigint("seq", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    id: uuid("id")
      .notNull()
      .unique()
      .$defaultFn(() => uuidv7()),
    tenantId: uuid("tenant_id").notNull(),
    sessionId: uuid("session_id")
      .notNull()
      .references(() => sysAgentSession.id, { onDelete: "cascade" }),
    turnId: uuid("turn_id"),
    role: text("role", { enum: ["system", "user", "assistant", "tool"] }).notNull(),
    parts: jsonb("parts").$type<MessageParts>().notNull(),
    createdAt: createdAt(),
    // Edit-and-resend or regenerate replaced this message: it stays stored (and in the audit) but leaves the
    // conversation the model and the drawer see; superseded_by is the turn that replaced it.
    supersededAt: timestamp("superseded_at", { withTimezone: true }),
    supersededBy: uuid("superseded_by"),
  },
  (t) => [index("sys_agent_message_session_idx").on(t.tenantId, t.sessionId, t.seq)],
);

// Notifications (task results) waiting for the conversation's next turn.
export const sysAgentNotification = pgTable(
  "sys_agent_notification",
  {
    seq: bigint("seq", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    tenantId: uuid("tenant_id").notNull(),
    sessionId: uuid("session_id").notNull(),
    type: text("type").notNull(),
    body: text("body").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("sys_agent_notification_session_idx").on(t.tenantId, t.sessionId, t.seq)],
);

/** Raw bytes (PostgreSQL `bytea`): a Buffer in, a Buffer out, whichever driver (PGlite answers a Uint8Array). */
const bytea = customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => "bytea",
  toDriver: (value) => value,
  fromDriver: (value) =>
    Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength),
});

// Files uploaded for the drawer (POST /api/agent/files): images sent to vision models, and text/PDF whose text
// enters the model's context. Only the uploader uses a file; it counts against the tenant's storage quota, is
// deleted by retention (the tenant's window) and with the conversation it was sent in.
export const agentFiles = pgTable(
  "agent_files",
  {
    id: id(),
    tenantId: tenantRef(),
    userId: userRef(),
    // Set when the file is first sent in a conversation; deleting that conversation deletes the file.
    conversationId: uuid("conversation_id").references(() => sysAgentSession.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    // The type its content was recognised as (magic bytes for images and PDF), never only the declared one.
    mediaType: text("media_type").notNull(),
    size: integer("size").notNull(),
    bytes: bytea("bytes").notNull(),
    // Text and PDF files: their text, extracted at upload (capped; text_chars is the whole text's length).
    text: text("text"),
    textChars: integer("text_chars"),
    createdAt: createdAt(),
  },
  (t) => [
    // The quota's sum and retention's sweep, per tenant.
    index("agent_files_tenant_created_idx").on(t.tenantId, t.createdAt),
    // Deleting a conversation finds its files (the foreign key's cascade) without a scan.
    index("agent_files_conversation_idx").on(t.conversationId),
  ],
);
export type AgentFile = typeof agentFiles.$inferSelect;

/**
 * Where a turn came from: the drawer, a /v1 call, a schedule, a prompt's playground, an evaluation run, or a tool
 * call over /mcp. A text column without a check: a new source needs no migration.
 */
export const TURN_SOURCES = ["drawer", "api", "schedule", "playground", "eval", "mcp"] as const;
export const TURN_STATUSES = ["running", "success", "failed", "stopped", "limit", "interrupted"] as const;
/** How a turn's cost was reached (lib/gateway/types.ts CostStatus): priced, unpriced (cost unknown) or assumed. */
export const COST_STATUSES = ["priced", "unpriced", "assumed"] as const;
export type TurnStatusValue = (typeof TURN_STATUSES)[number];

// The usage ledger: one row per turn, written as running at the start and closed in a finally.
export const sysAgentTurn = pgTable(
  "sys_agent_turn",
  {
    id: uuid("id").primaryKey(),
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
  },
  (t) => [
    index("sys_agent_turn_tenant_started_idx").on(t.tenantId, t.startedAt),
    // The ledger's end-user and API-key filters, newest first; partial, so chat turns do not pay for them.
    index("sys_agent_turn_tenant_end_user_idx")
      .on(t.tenantId, t.endUser, t.startedAt)
      .where(sql`${t.endUser} is not null`),
    index("sys_agent_turn_tenant_api_key_idx")
      .on(t.tenantId, t.apiKeyId, t.startedAt)
      .where(sql`${t.apiKeyId} is not null`),
    index("sys_agent_turn_tags_idx").using("gin", t.tags),
    // Unpriced and assumed usage on the ledger and the cost dashboard; partial, since nearly every call is priced.
    index("sys_agent_turn_tenant_cost_status_idx")
      .on(t.tenantId, t.startedAt)
      .where(sql`${t.costStatus} <> 'priced'`),
    index("sys_agent_turn_tenant_status_idx").on(t.tenantId, t.status, t.startedAt),
    // The status segment with the model filter, the ledger's most common combination.
    index("sys_agent_turn_tenant_status_model_idx").on(t.tenantId, t.status, t.servedModel, t.startedAt),
    index("sys_agent_turn_started_idx").on(t.startedAt),
    // A prompt's versions compared on the cost dashboard, and the ledger's prompt filter; partial.
    index("sys_agent_turn_tenant_prompt_idx")
      .on(t.tenantId, t.promptName, t.promptVersion, t.startedAt)
      .where(sql`${t.promptName} is not null`),
    index("sys_agent_turn_running_idx").on(t.status, t.startedAt),
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
    id: id(),
    tenantId: uuid("tenant_id").notNull(),
    userId: uuid("user_id"),
    turnId: uuid("turn_id").notNull(),
    conversationId: uuid("conversation_id"),
    seq: integer("seq").notNull(),
    type: text("type", { enum: AUDIT_TYPES }).notNull(),
    payload: jsonb("payload").$type<Record<string, unknown>>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("sys_agent_audit_turn_seq_idx").on(t.turnId, t.seq),
    index("sys_agent_audit_tenant_created_idx").on(t.tenantId, t.createdAt),
    // The event-type segment: without it a rare or absent type scans the whole range (bench: 472 ms → 1 ms).
    index("sys_agent_audit_tenant_type_created_idx").on(t.tenantId, t.type, t.createdAt),
    index("sys_agent_audit_created_idx").on(t.createdAt),
  ],
);
export type SysAgentAudit = typeof sysAgentAudit.$inferSelect;

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

// --- API -----------------------------------------------------------------------------------------------------

// Tenant API keys for /v1: only a SHA-256 of the secret is stored (the secret is random, so no slow hash is needed).
export const apiKey = pgTable(
  "api_key",
  {
    id: id(),
    tenantId: tenantRef(),
    name: text("name").notNull(),
    prefix: text("prefix").notNull(),
    secretHash: text("secret_hash").notNull().unique(),
    createdBy: uuid("created_by")
      .notNull()
      .references(() => appUser.id),
    createdAt: createdAt(),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
    // The tools this key may call over /mcp (`server__tool` or a built-in tool's name); null: every tool the
    // tenant offers. The model API (/v1) does not read it.
    allowedTools: text("allowed_tools").array(),
  },
  (t) => [index("api_key_tenant_idx").on(t.tenantId, t.createdAt)],
);
export type ApiKey = typeof apiKey.$inferSelect;

// --- The request pipeline ------------------------------------------------------------------------------------

export const LIMIT_SCOPES = ["tenant", "key", "user"] as const;
export type LimitScope = (typeof LIMIT_SCOPES)[number];

// Rate limits and budgets of a tenant, of one of its API keys, or of one of its users (drawer turns). A null
// column is no limit. Budgets are USD per UTC day and month: past the soft one a call is let through with a
// warning, past the hard one it is refused.
export const usageLimit = pgTable(
  "usage_limit",
  {
    tenantId: tenantRef(),
    scope: text("scope", { enum: LIMIT_SCOPES }).notNull(),
    // The tenant's id for the tenant scope, else the key's or the user's id.
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
export const usageCounter = pgTable(
  "usage_counter",
  {
    tenantId: uuid("tenant_id").notNull(),
    key: text("key").notNull(),
    value: bigint("value", { mode: "number" }).notNull().default(0),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
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

// The prompt store: a tenant's named prompts, each with immutable numbered versions and labels pointing at them.
export const PROMPT_TYPES = ["chat", "text"] as const;
export type PromptType = (typeof PROMPT_TYPES)[number];
export type PromptMessage = { role: "system" | "user" | "assistant"; content: string };
export type PromptConfig = {
  model?: string;
  temperature?: number;
  maxTokens?: number;
  toolSets?: string[];
};

export const prompt = pgTable(
  "prompt",
  {
    id: id(),
    tenantId: tenantRef(),
    // May use "/" for folders ("support/triage").
    name: text("name").notNull(),
    type: text("type", { enum: PROMPT_TYPES }).notNull(),
    createdBy: uuid("created_by").notNull(),
    createdAt: createdAt(),
    // Nothing is deleted, only archived (hidden from lists; its versions and history stay).
    archivedAt: timestamp("archived_at", { withTimezone: true }),
  },
  (t) => [uniqueIndex("prompt_tenant_name_idx").on(t.tenantId, t.name)],
);

// A version is never changed after it is written.
export const promptVersion = pgTable(
  "prompt_version",
  {
    id: id(),
    tenantId: uuid("tenant_id").notNull(),
    promptId: uuid("prompt_id")
      .notNull()
      .references(() => prompt.id, { onDelete: "cascade" }),
    version: integer("version").notNull(),
    type: text("type", { enum: PROMPT_TYPES }).notNull(),
    messages: jsonb("messages").$type<PromptMessage[]>(),
    text: text("text"),
    config: jsonb("config").$type<PromptConfig>().notNull().default({}),
    variables: text("variables").array().notNull().default(sql`'{}'::text[]`),
    message: text("message"),
    createdBy: uuid("created_by").notNull(),
    createdByEmail: text("created_by_email").notNull(),
    createdAt: createdAt(),
    archivedAt: timestamp("archived_at", { withTimezone: true }),
  },
  (t) => [uniqueIndex("prompt_version_prompt_version_idx").on(t.promptId, t.version)],
);

// A label points at one version of its prompt; `latest` is kept by the store, `production` is protected.
export const promptLabel = pgTable(
  "prompt_label",
  {
    promptId: uuid("prompt_id")
      .notNull()
      .references(() => prompt.id, { onDelete: "cascade" }),
    tenantId: uuid("tenant_id").notNull(),
    label: text("label").notNull(),
    version: integer("version").notNull(),
    updatedBy: uuid("updated_by").notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.promptId, t.label] })],
);

// Evaluation: datasets of cases per tenant, and runs that ask one or more targets (an alias, optionally with a
// stored prompt) every case and score the answers. Runs are durable: their items are rows claimed with
// `for update skip locked` under a lease, so a restart resumes and two instances never run one item twice.
export const EVAL_RUN_STATUSES = ["queued", "running", "done", "cancelled", "failed", "budget"] as const;
export type EvalRunStatus = (typeof EVAL_RUN_STATUSES)[number];
export const EVAL_ITEM_STATUSES = ["pending", "running", "done", "failed", "cancelled", "skipped"] as const;
export type EvalItemStatus = (typeof EVAL_ITEM_STATUSES)[number];

/** An item's input: chat messages, or the variables of a target's stored prompt. */
export type EvalInput =
  | { messages: { role: "system" | "user" | "assistant"; content: string }[] }
  | { variables: Record<string, string> };
/** A scorer as stored (features/evals/contracts.ts validates them). */
export type EvalScorer = { type: string } & Record<string, unknown>;
export type EvalTarget = { model: string; prompt?: { name: string; version?: number; label?: string } };
export type EvalScore = { type: string; passed: boolean; score: number; reason: string };

export const evalDataset = pgTable(
  "eval_dataset",
  {
    id: id(),
    tenantId: tenantRef(),
    name: text("name").notNull(),
    description: text("description"),
    // Default scorers, used by a run that names none.
    scorers: jsonb("scorers").$type<EvalScorer[]>().notNull().default([]),
    createdBy: uuid("created_by").notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    archivedAt: timestamp("archived_at", { withTimezone: true }),
  },
  (t) => [uniqueIndex("eval_dataset_tenant_name_idx").on(t.tenantId, t.name)],
);

export const evalDatasetItem = pgTable(
  "eval_dataset_item",
  {
    id: id(),
    tenantId: uuid("tenant_id").notNull(),
    datasetId: uuid("dataset_id")
      .notNull()
      .references(() => evalDataset.id, { onDelete: "cascade" }),
    input: jsonb("input").$type<EvalInput>().notNull(),
    // Text, or any JSON value; null: no expected output.
    expected: jsonb("expected").$type<unknown>(),
    metadata: jsonb("metadata").$type<Record<string, unknown>>().notNull().default({}),
    // The ledger turn it was made from ("Add to dataset"), if any.
    sourceTurnId: uuid("source_turn_id"),
    createdAt: createdAt(),
    // An item's version: a run copies the item as it was (with this stamp) when it starts.
    updatedAt: updatedAt(),
    archivedAt: timestamp("archived_at", { withTimezone: true }),
  },
  (t) => [index("eval_dataset_item_dataset_idx").on(t.datasetId, t.createdAt)],
);

export const evalRun = pgTable(
  "eval_run",
  {
    id: id(),
    tenantId: tenantRef(),
    datasetId: uuid("dataset_id")
      .notNull()
      .references(() => evalDataset.id),
    name: text("name"),
    status: text("status", { enum: EVAL_RUN_STATUSES }).notNull().default("queued"),
    targets: jsonb("targets").$type<EvalTarget[]>().notNull(),
    scorers: jsonb("scorers").$type<EvalScorer[]>().notNull(),
    concurrency: integer("concurrency").notNull().default(4),
    // Items x targets, fixed when the run is created.
    total: integer("total").notNull(),
    createdBy: uuid("created_by").notNull(),
    // Through which API key a run was started (the CI gate), if any.
    apiKeyId: uuid("api_key_id"),
    createdAt: createdAt(),
    startedAt: timestamp("started_at", { withTimezone: true }),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
    cancelRequestedAt: timestamp("cancel_requested_at", { withTimezone: true }),
    error: text("error"),
  },
  (t) => [
    index("eval_run_tenant_created_idx").on(t.tenantId, t.createdAt),
    index("eval_run_status_idx").on(t.status),
  ],
);

export const evalRunItem = pgTable(
  "eval_run_item",
  {
    id: id(),
    tenantId: uuid("tenant_id").notNull(),
    runId: uuid("run_id")
      .notNull()
      .references(() => evalRun.id, { onDelete: "cascade" }),
    itemId: uuid("item_id").notNull(),
    targetIndex: integer("target_index").notNull(),
    // The item as it was when the run was created.
    input: jsonb("input").$type<EvalInput>().notNull(),
    expected: jsonb("expected").$type<unknown>(),
    itemUpdatedAt: timestamp("item_updated_at", { withTimezone: true }).notNull(),
    status: text("status", { enum: EVAL_ITEM_STATUSES }).notNull().default("pending"),
    // The instance working on it and until when its lease holds (a dead instance's items are claimed again).
    claimedBy: uuid("claimed_by"),
    leaseUntil: timestamp("lease_until", { withTimezone: true }),
    attempts: integer("attempts").notNull().default(0),
    output: text("output"),
    toolCalls: jsonb("tool_calls").$type<{ name: string; args: Record<string, unknown> }[]>(),
    // The ledger row of the target's call (source eval).
    turnId: uuid("turn_id"),
    latencyMs: integer("latency_ms"),
    cost: numeric("cost", { precision: 20, scale: 10 }),
    costStatus: text("cost_status", { enum: COST_STATUSES }),
    inputTokens: integer("input_tokens"),
    outputTokens: integer("output_tokens"),
    passed: boolean("passed"),
    score: doublePrecision("score"),
    scores: jsonb("scores").$type<EvalScore[]>(),
    // The judge's own calls' cost (they are ledger rows too).
    judgeCost: numeric("judge_cost", { precision: 20, scale: 10 }),
    error: text("error"),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
  },
  (t) => [
    uniqueIndex("eval_run_item_run_item_target_idx").on(t.runId, t.itemId, t.targetIndex),
    index("eval_run_item_run_status_idx").on(t.runId, t.status),
  ],
);

// --- Tenants' MCP servers --------------------------------------------------------------------------------------

export const MCP_TRANSPORTS = ["auto", "streamable", "sse"] as const;
export type McpTransport = (typeof MCP_TRANSPORTS)[number];

/** A header sent to an MCP server: its name in clear, its value sealed (AES-256-GCM, features/mcp/server/client/secrets.ts). */
export type McpSealedHeader = { name: string; sealed: string };

/** A tool as its server last listed it (the parts Tollgate uses). */
export type McpToolInfo = {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
};

// A remote MCP server a tenant admin registered; its enabled tools become a tool set named after it. The tool
// list is cached here (refreshed on demand and when the server announces a change), with the last check's status.
export const mcpServer = pgTable(
  "mcp_server",
  {
    id: id(),
    tenantId: tenantRef(),
    // [a-z0-9_-]: the tool set's name and the prefix of its tools' names (`name__tool`).
    name: text("name").notNull(),
    url: text("url").notNull(),
    transport: text("transport", { enum: MCP_TRANSPORTS }).notNull().default("auto"),
    // The transport the last connection used (what "auto" found).
    connectedTransport: text("connected_transport", { enum: ["streamable", "sse"] }),
    headers: jsonb("headers").$type<McpSealedHeader[]>().notNull().default([]),
    timeoutMs: integer("timeout_ms").notNull().default(30_000),
    // null until the first listing.
    tools: jsonb("tools").$type<McpToolInfo[]>(),
    toolsListedAt: timestamp("tools_listed_at", { withTimezone: true }),
    lastCheckedAt: timestamp("last_checked_at", { withTimezone: true }),
    // null: the last check reached the server.
    lastError: text("last_error"),
    lastLatencyMs: integer("last_latency_ms"),
    createdBy: uuid("created_by").notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("mcp_server_tenant_name_idx").on(t.tenantId, t.name)],
);
export type McpServerRow = typeof mcpServer.$inferSelect;

// An admin's setting for one tool of a server; a tool without a row is enabled for every role, unconfirmed. A tool
// that appears after registration gets a row switched off (updated_by null: set by Tollgate, not an admin).
export const mcpToolSetting = pgTable(
  "mcp_tool_setting",
  {
    tenantId: tenantRef(),
    serverId: uuid("server_id")
      .notNull()
      .references(() => mcpServer.id, { onDelete: "cascade" }),
    // The tool's name on its server.
    tool: text("tool").notNull(),
    enabled: boolean("enabled").notNull().default(true),
    // null: every role.
    roles: membershipRole("roles").array(),
    requiresConfirmation: boolean("requires_confirmation").notNull().default(false),
    updatedBy: uuid("updated_by"),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.serverId, t.tool] }),
    // Deleting a server cascades to its settings without a scan.
    index("mcp_tool_setting_server_idx").on(t.serverId),
  ],
);
export type McpToolSettingRow = typeof mcpToolSetting.$inferSelect;
