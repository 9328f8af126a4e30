// Alerts: rules that watch spend, failures and the platform, the channels they are sent to, what fired, and the
// durable deliveries the worker sends (claimed with SKIP LOCKED, retried with backoff, dead after N tries).
import "server-only";
import { sql } from "drizzle-orm";
import {
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { createdAt, id, updatedAt } from "./columns";
import { tenant } from "./tenants";

// A tenant's rows, or (tenant_id null) the super admin's platform rules and channels.
const ownerTenant = () => uuid("tenant_id").references(() => tenant.id, { onDelete: "cascade" });

export const ALERT_CHANNEL_KINDS = ["webhook", "slack", "email"] as const;
export type AlertChannelKind = (typeof ALERT_CHANNEL_KINDS)[number];

// Where alerts go: a webhook (JSON signed with HMAC-SHA256), a Slack incoming webhook, or email addresses.
// `config` is checked by features/alerts/contracts.ts on the way in.
export const alertChannel = pgTable(
  "alert_channel",
  {
    id: id(),
    tenantId: ownerTenant(),
    name: text("name").notNull(),
    kind: text("kind", { enum: ALERT_CHANNEL_KINDS }).notNull(),
    config: jsonb("config").$type<Record<string, unknown>>().notNull(),
    enabled: boolean("enabled").notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    updatedBy: uuid("updated_by"),
  },
  (t) => [index("alert_channel_tenant_idx").on(t.tenantId)],
);
export type AlertChannel = typeof alertChannel.$inferSelect;

export const ALERT_RULE_KINDS = [
  "budget_threshold",
  "run_ceiling",
  "spend_anomaly",
  "failure_rate",
  "breaker_open",
  "unpriced_calls",
  "guardrail_blocks",
  "key_expiring",
] as const;
export type AlertRuleKind = (typeof ALERT_RULE_KINDS)[number];

// What to watch and whom to tell: `params` per kind (thresholds, multiple, percent, window…), checked by
// features/alerts/contracts.ts; `channelIds` the channels of the same owner it is sent to.
export const alertRule = pgTable(
  "alert_rule",
  {
    id: id(),
    tenantId: ownerTenant(),
    name: text("name").notNull(),
    kind: text("kind", { enum: ALERT_RULE_KINDS }).notNull(),
    params: jsonb("params").$type<Record<string, unknown>>().notNull().default({}),
    channelIds: uuid("channel_ids").array().notNull().default(sql`'{}'::uuid[]`),
    enabled: boolean("enabled").notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    updatedBy: uuid("updated_by"),
  },
  (t) => [index("alert_rule_tenant_idx").on(t.tenantId)],
);
export type AlertRule = typeof alertRule.$inferSelect;

// An alert that fired: once per rule and dedupe key (the threshold and its period, the key and its expiry…), so
// every replica and every evaluation may try, and one row is written. rule_id null: a "send test".
export const alertEvent = pgTable(
  "alert_event",
  {
    id: id(),
    tenantId: ownerTenant(),
    ruleId: uuid("rule_id").references(() => alertRule.id, { onDelete: "cascade" }),
    dedupeKey: text("dedupe_key").notNull(),
    severity: text("severity", { enum: ["info", "warning", "critical"] }).notNull(),
    title: text("title").notNull(),
    body: text("body").notNull(),
    details: jsonb("details").$type<Record<string, unknown>>().notNull().default({}),
    firedAt: createdAt(),
  },
  (t) => [
    uniqueIndex("alert_event_rule_dedupe_idx").on(t.ruleId, t.dedupeKey),
    index("alert_event_tenant_fired_idx").on(t.tenantId, t.firedAt),
  ],
);
export type AlertEvent = typeof alertEvent.$inferSelect;

export const ALERT_DELIVERY_STATUSES = ["pending", "delivered", "dead"] as const;
export type AlertDeliveryStatus = (typeof ALERT_DELIVERY_STATUSES)[number];

// One event to one channel: written in the transaction that writes the event, so nothing fired is lost; claimed
// by a sender with FOR UPDATE SKIP LOCKED under a lease (a sender that dies leaves it to be claimed again), tried
// with backoff until delivered, or dead after the channel's tries.
export const alertDelivery = pgTable(
  "alert_delivery",
  {
    id: id(),
    tenantId: ownerTenant(),
    eventId: uuid("event_id")
      .notNull()
      .references(() => alertEvent.id, { onDelete: "cascade" }),
    channelId: uuid("channel_id")
      .notNull()
      .references(() => alertChannel.id, { onDelete: "cascade" }),
    status: text("status", { enum: ALERT_DELIVERY_STATUSES }).notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }).notNull().defaultNow(),
    leaseUntil: timestamp("lease_until", { withTimezone: true }),
    lastError: text("last_error"),
    lastStatus: integer("last_status"),
    deliveredAt: timestamp("delivered_at", { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [
    index("alert_delivery_due_idx").on(t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
    index("alert_delivery_tenant_created_idx").on(t.tenantId, t.createdAt),
  ],
);
export type AlertDelivery = typeof alertDelivery.$inferSelect;
