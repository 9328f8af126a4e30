import { sql } from "drizzle-orm";
import {
  boolean,
  index,
  integer,
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
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("app_user_email_lower_idx").on(sql`lower(${t.email})`)],
);
export type AppUser = typeof appUser.$inferSelect;

export const membership = pgTable(
  "membership",
  {
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenant.id, { onDelete: "cascade" }),
    userId: uuid("user_id")
      .notNull()
      .references(() => appUser.id, { onDelete: "cascade" }),
    role: membershipRole("role").notNull().default("member"),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.userId] }), index("membership_user_idx").on(t.userId)],
);
export type Membership = typeof membership.$inferSelect;

// Failed sign-in counters, keyed by "email:<address>" or "ip:<address>"; shared by every app instance.
export const authThrottle = pgTable("auth_throttle", {
  key: text("key").primaryKey(),
  failures: integer("failures").notNull().default(0),
  windowStartedAt: timestamp("window_started_at", { withTimezone: true }).notNull().defaultNow(),
  blockedUntil: timestamp("blocked_until", { withTimezone: true }),
});

// --- agent runtime -------------------------------------------------------------------------------------------

// Notes the memory tool keeps per user within a tenant.
export const agentMemory = pgTable(
  "agent_memory",
  {
    id: id(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenant.id, { onDelete: "cascade" }),
    userId: uuid("user_id")
      .notNull()
      .references(() => appUser.id, { onDelete: "cascade" }),
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
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenant.id, { onDelete: "cascade" }),
    userId: uuid("user_id")
      .notNull()
      .references(() => appUser.id, { onDelete: "cascade" }),
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

// The demo business data behind the orders tool set: per tenant, to show tenant scoping.
export const demoOrder = pgTable(
  "demo_order",
  {
    id: id(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenant.id, { onDelete: "cascade" }),
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
