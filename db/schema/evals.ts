// Evaluation datasets and runs.
import "server-only";
import {
  boolean,
  doublePrecision,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { createdAt, id, updatedAt } from "./columns";
import { tenantRef } from "./references";
import { COST_STATUSES } from "./turns";

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
