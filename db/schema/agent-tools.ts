// What the agent's tools keep: memory notes, scheduled messages, background tasks.
import "server-only";
import { boolean, index, integer, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { createdAt, id, updatedAt } from "./columns";
import { tenantRef, userRef } from "./references";
import { membershipRole } from "./tenants";

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

/**
 * Where a schedule's result goes besides its own conversation's turn: another conversation of the same user (the
 * turn runs there), or an alert channel of the tenant (the answer is delivered there too).
 */
export type ScheduleTarget =
  | { type: "conversation"; conversationId: string }
  | { type: "alert_channel"; channelId: string };

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
    target: jsonb("target").$type<ScheduleTarget>(),
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

// One run of a schedule (schedule_log): when, how it ended, and what it answered (capped by the writer).
export const SCHEDULE_RUN_STATUSES = ["running", "succeeded", "failed", "skipped"] as const;
export type ScheduleRunStatus = (typeof SCHEDULE_RUN_STATUSES)[number];
export const agentScheduleRun = pgTable(
  "agent_schedule_run",
  {
    id: id(),
    tenantId: tenantRef(),
    scheduleId: uuid("schedule_id")
      .notNull()
      .references(() => agentSchedule.id, { onDelete: "cascade" }),
    status: text("status", { enum: SCHEDULE_RUN_STATUSES }).notNull().default("running"),
    // The turn the run made (in the target conversation when there is one).
    turnId: uuid("turn_id"),
    result: text("result"),
    error: text("error"),
    startedAt: timestamp("started_at", { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
  },
  (t) => [index("agent_schedule_run_schedule_idx").on(t.tenantId, t.scheduleId, t.startedAt)],
);
export type AgentScheduleRun = typeof agentScheduleRun.$inferSelect;

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
