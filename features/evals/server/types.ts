import type { EvalInput } from "@/db/schema";

/**
 * The scorers as the runner applies them (features/evals/contracts.ts validates them on the way in; this is the
 * same shape, kept here because lib/ imports nothing from features/).
 */
export type Scorer =
  | { type: "exact"; value?: string; caseSensitive?: boolean }
  | { type: "contains"; value?: string; caseSensitive?: boolean }
  | { type: "regex"; pattern: string; flags?: string }
  | { type: "json_schema"; schema: Record<string, unknown> }
  | { type: "tool_called"; name: string; args?: Record<string, unknown> }
  | { type: "numeric"; value?: number; tolerance?: number }
  | { type: "latency"; maxMs: number }
  | { type: "cost"; maxUsd: string }
  | { type: "llm_judge"; rubric: string; model: string; threshold?: number };

export type ScoreResult = { type: string; passed: boolean; score: number; reason: string };

export type Target = { model: string; prompt?: { name: string; version?: number; label?: string } };

/** A dataset item as given: chat messages or a prompt's variables, an expected output and metadata. */
export type NewItem = { input: EvalInput; expected?: unknown; metadata?: Record<string, unknown> };

export type NewDataset = {
  name: string;
  description?: string;
  items: NewItem[];
  scorers?: Scorer[];
};

export type NewRun = {
  datasetId: string;
  name?: string;
  targets: Target[];
  scorers?: Scorer[];
  concurrency: number;
};

export type RunStatus = "queued" | "running" | "done" | "cancelled" | "failed" | "budget";

/** One target's results (features/evals/contracts.ts TargetSummary). Costs are exact USD decimal strings. */
export type TargetSummary = {
  index: number;
  model: string;
  prompt?: { name: string; version?: number; label?: string };
  done: number;
  passed: number;
  failures: number;
  passRate: number | null;
  meanScore: number | null;
  cost: string;
  costPerPass: string | null;
  p50LatencyMs: number | null;
  p95LatencyMs: number | null;
};

export type RunItemView = {
  itemId: string;
  targetIndex: number;
  status: string;
  input: unknown;
  expected: unknown;
  output: string | null;
  passed: boolean | null;
  score: number | null;
  scores: ScoreResult[] | null;
  latencyMs: number | null;
  cost: string | null;
  turnId: string | null;
  error: string | null;
};

/** A run as its page and the CLI read it (features/evals/contracts.ts RunView). */
export type RunView = {
  id: string;
  name: string | null;
  datasetId: string;
  datasetName: string;
  status: RunStatus;
  progress: { done: number; total: number; passed: number; cost: string; etaSeconds: number | null };
  targets: TargetSummary[];
  scorers: Scorer[];
  concurrency: number;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  error: string | null;
  items: RunItemView[];
};
