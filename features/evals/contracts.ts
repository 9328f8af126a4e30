// What the evaluation routes take and answer, shared by the routes, the CLI and the browser. Browser-safe: zod
// and types only.

import { hasNoNul, NO_NUL } from "@/db/sql-text";
import { z } from "@/lib/core/schema/zod";

const text = (max: number) => z.string().max(max).refine(hasNoNul, NO_NUL);
const USD = /^\d{1,10}(\.\d{1,10})?$/;

const message = z.object({ role: z.enum(["system", "user", "assistant"]), content: text(100_000) }).strict();

/** An item's input: chat messages, or the variables of a target's stored prompt. */
export const evalInput = z.union([
  z.object({ messages: z.array(message).min(1, "at least one message").max(200) }).strict(),
  z.object({ variables: z.record(z.string().max(200), text(100_000)) }).strict(),
]);

export const datasetItemInput = z
  .object({
    input: evalInput,
    // Text, or any JSON value.
    expected: z.unknown().optional(),
    metadata: z.record(z.string().max(200), z.unknown()).optional(),
  })
  .strict();

/**
 * The scorers. An item passes when every scorer of its run passes; each gives a score from 0 to 1 and a reason.
 * `contains`, `exact`, `regex` and `numeric` compare the answer's text; `value` defaults to the item's expected
 * output.
 */
export const scorerInput = z.discriminatedUnion("type", [
  z
    .object({ type: z.literal("exact"), value: z.string().optional(), caseSensitive: z.boolean().optional() })
    .strict(),
  z
    .object({
      type: z.literal("contains"),
      value: z.string().optional(),
      caseSensitive: z.boolean().optional(),
    })
    .strict(),
  z
    .object({
      type: z.literal("regex"),
      pattern: text(2_000),
      flags: z
        .string()
        .regex(/^[imsu]*$/)
        .optional(),
    })
    .strict(),
  // The answer must be JSON valid against this JSON Schema (draft 2020-12, checked with ajv).
  z.object({ type: z.literal("json_schema"), schema: z.record(z.string(), z.unknown()) }).strict(),
  // The answer called this tool, with arguments containing these (a subset match), when given.
  z
    .object({
      type: z.literal("tool_called"),
      name: z.string().min(1).max(64),
      args: z.record(z.string(), z.unknown()).optional(),
    })
    .strict(),
  // The first number in the answer is within `tolerance` (absolute) of `value` (default: the expected output).
  z
    .object({
      type: z.literal("numeric"),
      value: z.number().optional(),
      tolerance: z.number().min(0).default(0),
    })
    .strict(),
  z.object({ type: z.literal("latency"), maxMs: z.number().int().min(1) }).strict(),
  z
    .object({ type: z.literal("cost"), maxUsd: z.string().regex(USD, "an amount in USD, such as 0.01") })
    .strict(),
  // A judge alias scores the answer against the rubric from 0 to 1, with its reasoning; passes at `threshold`.
  z
    .object({
      type: z.literal("llm_judge"),
      rubric: text(10_000).pipe(z.string().min(1, "write the rubric")),
      model: z.string().min(1).max(200),
      threshold: z.number().min(0).max(1).default(0.5),
    })
    .strict(),
]);
export type ScorerInput = z.output<typeof scorerInput>;

/** POST /api/evals/datasets/{id}/items: `{items: [...]}`, or JSONL text as `{jsonl: "..."}` (one item a line). */
export const appendItemsInput = z
  .object({
    items: z.array(datasetItemInput).min(1, "at least one item").max(10_000).optional(),
    jsonl: z.string().max(20_000_000).optional(),
  })
  .strict()
  .refine((b) => (b.items === undefined) !== (b.jsonl === undefined), "give items or jsonl, not both");

/** POST /api/evals/datasets/{id}/from-turn: "Add to dataset" on a ledger turn. */
export const fromTurnInput = z.object({ turnId: z.uuid("turnId must be a turn id") }).strict();

export const createDatasetInput = z
  .object({
    name: text(200).pipe(z.string().trim().min(1, "enter a name")),
    description: text(2_000).optional(),
    items: z.array(datasetItemInput).max(10_000).default([]),
    scorers: z.array(scorerInput).max(20).optional(),
  })
  .strict();

export const targetInput = z
  .object({
    model: z.string().min(1).max(200),
    prompt: z
      .object({
        name: z.string().min(1).max(200),
        version: z.number().int().min(1).optional(),
        label: z.string().min(1).max(40).optional(),
      })
      .strict()
      .refine((p) => !(p.version !== undefined && p.label !== undefined), "give version or label, not both")
      .optional(),
  })
  .strict();

export const createRunInput = z
  .object({
    datasetId: z.uuid("datasetId must be a dataset id"),
    name: text(200).optional(),
    targets: z.array(targetInput).min(1, "at least one target").max(10),
    scorers: z.array(scorerInput).max(20).optional(),
    concurrency: z.number().int().min(1).max(32).default(4),
  })
  .strict();

// What the run routes answer: the store's own types (features/evals/server/types.ts), so each exists once.
export type { RunItemView, RunStatus, RunView, TargetSummary } from "@/features/evals/server/types";
