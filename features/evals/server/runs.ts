// Evaluation runs of a tenant: created from a dataset × targets (a snapshot of items as pending run items, which
// the runner works through), listed, read with their per-target summaries, cancelled. Tenant scoped.
import "server-only";
import Big from "big.js";
import { and, asc, desc, eq, inArray, isNull, sql } from "drizzle-orm";
import type { Database } from "@/db";
import { evalDataset, evalDatasetItem, evalRun, evalRunItem } from "@/db/schema";
import { describeRef, findVersion } from "@/features/prompts/server";
import { type Actor, recordChange } from "@/lib/changes/changes";
import { AppError, notFound } from "@/lib/core/errors/app-error";
import { isUuid } from "@/lib/core/schema/uuid";
import { CHUNK, datasetRow, invalid } from "./rows";
import { DEFAULT_SCORERS, scorerProblems } from "./scorers";
import type { NewRun, RunItemView, RunStatus, RunView, Scorer, Target, TargetSummary } from "./types";

export type RunDeps = { hasModel(alias: string): boolean; modelAliases(): string[] };
export type RunCreator = { userId: string; apiKeyId: string | null; actor?: Actor };

/**
 * Creates a run: checks every target (a known alias; a stored prompt version or label, resolved to its version
 * now, so the run says which version it asked), its scorers (the run's, else the dataset's, else `contains`),
 * and that every item suits every target, then snapshots items × targets as pending run items.
 */
export async function createRun(
  db: Database,
  tenantId: string,
  input: NewRun,
  who: RunCreator,
  deps: RunDeps,
): Promise<{ id: string; total: number }> {
  const dataset = await datasetRow(db, tenantId, input.datasetId);
  if (!dataset) throw notFound("dataset");
  if (dataset.archivedAt) throw new AppError("conflict", `dataset "${dataset.name}" is archived`);
  const fields: Record<string, string[]> = {};
  const targets: Target[] = [];
  for (const [i, t] of input.targets.entries()) {
    if (!deps.hasModel(t.model))
      fields[`targets.${i}.model`] = [
        `unknown model "${t.model}"; one of: ${deps.modelAliases().join(", ")}`,
      ];
    if (!t.prompt) {
      targets.push({ model: t.model });
      continue;
    }
    const ref = t.prompt.version !== undefined ? { version: t.prompt.version } : { label: t.prompt.label };
    const found = await findVersion(db, tenantId, t.prompt.name, ref);
    if (!found) {
      fields[`targets.${i}.prompt`] = [`${describeRef(t.prompt.name, ref)} not found`];
      continue;
    }
    targets.push({
      model: t.model,
      prompt: {
        name: found.name,
        version: found.version,
        ...(t.prompt.label ? { label: t.prompt.label } : {}),
      },
    });
  }
  const scorers: Scorer[] = input.scorers?.length
    ? input.scorers
    : (dataset.scorers as Scorer[]).length
      ? (dataset.scorers as Scorer[])
      : DEFAULT_SCORERS;
  Object.assign(fields, scorerProblems(scorers));
  for (const [i, s] of scorers.entries())
    if (s.type === "llm_judge" && !deps.hasModel(s.model))
      fields[`scorers.${i}.model`] = [`unknown judge model "${s.model}"`];
  const items = await db
    .select()
    .from(evalDatasetItem)
    .where(and(eq(evalDatasetItem.datasetId, dataset.id), isNull(evalDatasetItem.archivedAt)))
    .orderBy(asc(evalDatasetItem.createdAt), asc(evalDatasetItem.id));
  if (!items.length) fields.datasetId = [`dataset "${dataset.name}" has no items`];
  const withVariables = items.some((it) => "variables" in it.input);
  input.targets.forEach((t, i) => {
    if (withVariables && !t.prompt)
      fields[`targets.${i}.prompt`] = [
        "the dataset's items give prompt variables: this target needs a prompt ({name, version | label})",
      ];
  });
  if (Object.keys(fields).length) throw invalid(fields);
  return db.transaction(async (tx) => {
    const [run] = await tx
      .insert(evalRun)
      .values({
        tenantId,
        datasetId: dataset.id,
        name: input.name ?? null,
        targets,
        scorers,
        concurrency: input.concurrency,
        total: items.length * targets.length,
        createdBy: who.userId,
        apiKeyId: who.apiKeyId,
      })
      .returning({ id: evalRun.id });
    const rows = items.flatMap((item) =>
      targets.map((_, targetIndex) => ({
        tenantId,
        runId: run!.id,
        itemId: item.id,
        targetIndex,
        input: item.input,
        expected: item.expected ?? null,
        itemUpdatedAt: item.updatedAt,
      })),
    );
    for (let i = 0; i < rows.length; i += CHUNK)
      await tx.insert(evalRunItem).values(rows.slice(i, i + CHUNK));
    if (who.actor)
      await recordChange(tx, who.actor, {
        tenantId,
        action: "eval.run_started",
        objectType: "eval_run",
        objectId: run!.id,
        before: null,
        after: { dataset: dataset.name, targets, scorers, concurrency: input.concurrency },
      });
    return { id: run!.id, total: rows.length };
  });
}

async function runRow(db: Database, tenantId: string, id: string) {
  if (!isUuid(id)) return null;
  const [row] = await db
    .select({ run: evalRun, datasetName: evalDataset.name })
    .from(evalRun)
    .innerJoin(evalDataset, eq(evalDataset.id, evalRun.datasetId))
    .where(and(eq(evalRun.tenantId, tenantId), eq(evalRun.id, id)));
  return row ?? null;
}

export type RunListEntry = Omit<RunView, "items" | "scorers"> & { targetCount: number };

/** The tenant's runs (of one dataset, when given), newest first, with their summaries. */
export async function listRuns(db: Database, tenantId: string, datasetId?: string, limit = 100) {
  const rows = await db
    .select({ run: evalRun, datasetName: evalDataset.name })
    .from(evalRun)
    .innerJoin(evalDataset, eq(evalDataset.id, evalRun.datasetId))
    .where(and(eq(evalRun.tenantId, tenantId), datasetId ? eq(evalRun.datasetId, datasetId) : undefined))
    .orderBy(desc(evalRun.createdAt))
    .limit(limit);
  const out: RunListEntry[] = [];
  for (const r of rows) {
    const { items: _items, scorers: _scorers, ...view } = await viewOf(db, r.run, r.datasetName, false);
    out.push({ ...view, targetCount: r.run.targets.length });
  }
  return out;
}

/** A run with its progress, its summary per target and (unless `items` is false) every item's result. */
export async function getRun(db: Database, tenantId: string, id: string, opts: { items?: boolean } = {}) {
  const row = await runRow(db, tenantId, id);
  if (!row) throw notFound("run");
  return viewOf(db, row.run, row.datasetName, opts.items ?? true);
}

const FINISHED = new Set(["done", "failed"]);

/** The value at quantile q of sorted numbers (nearest rank). */
export function quantile(sorted: number[], q: number): number | null {
  if (!sorted.length) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

async function viewOf(
  db: Database,
  run: typeof evalRun.$inferSelect,
  datasetName: string,
  withItems: boolean,
): Promise<RunView> {
  const rows = await db
    .select()
    .from(evalRunItem)
    .where(eq(evalRunItem.runId, run.id))
    .orderBy(asc(evalRunItem.itemUpdatedAt), asc(evalRunItem.itemId), asc(evalRunItem.targetIndex));
  const itemCost = (r: (typeof rows)[number]) => new Big(r.cost ?? 0).plus(r.judgeCost ?? 0);
  const targets: TargetSummary[] = run.targets.map((t, index) => {
    const mine = rows.filter((r) => r.targetIndex === index);
    const finished = mine.filter((r) => FINISHED.has(r.status));
    const passed = finished.filter((r) => r.passed === true).length;
    const scored = finished.filter((r) => r.score !== null);
    const cost = mine.reduce((sum, r) => sum.plus(itemCost(r)), new Big(0));
    const latencies = finished
      .filter((r) => r.status === "done" && r.latencyMs !== null)
      .map((r) => r.latencyMs!)
      .sort((a, b) => a - b);
    return {
      index,
      model: t.model,
      ...(t.prompt ? { prompt: t.prompt } : {}),
      done: finished.length,
      passed,
      failures: finished.filter((r) => r.status === "failed").length,
      passRate: finished.length ? passed / finished.length : null,
      meanScore: scored.length ? scored.reduce((n, r) => n + r.score!, 0) / scored.length : null,
      cost: cost.toFixed(),
      costPerPass: passed ? cost.div(passed).toFixed() : null,
      p50LatencyMs: quantile(latencies, 0.5),
      p95LatencyMs: quantile(latencies, 0.95),
    };
  });
  const done = rows.filter((r) => FINISHED.has(r.status)).length;
  const remaining = rows.filter((r) => r.status === "pending" || r.status === "running").length;
  const elapsed = run.startedAt ? (Date.now() - run.startedAt.getTime()) / 1000 : null;
  const active = run.status === "queued" || run.status === "running";
  const items: RunItemView[] = withItems
    ? rows.map((r) => ({
        itemId: r.itemId,
        targetIndex: r.targetIndex,
        status: r.status,
        input: r.input,
        expected: r.expected ?? null,
        output: r.output,
        passed: r.passed,
        score: r.score,
        scores: r.scores,
        latencyMs: r.latencyMs,
        cost: r.cost === null && r.judgeCost === null ? null : itemCost(r).toFixed(),
        turnId: r.turnId,
        error: r.error,
      }))
    : [];
  return {
    id: run.id,
    name: run.name,
    datasetId: run.datasetId,
    datasetName,
    status: run.status as RunStatus,
    progress: {
      done,
      total: run.total,
      passed: rows.filter((r) => FINISHED.has(r.status) && r.passed === true).length,
      cost: rows.reduce((sum, r) => sum.plus(itemCost(r)), new Big(0)).toFixed(),
      etaSeconds: active && done > 0 && elapsed !== null ? Math.round((elapsed / done) * remaining) : null,
    },
    targets,
    scorers: run.scorers as Scorer[],
    concurrency: run.concurrency,
    createdAt: run.createdAt.toISOString(),
    startedAt: run.startedAt?.toISOString() ?? null,
    finishedAt: run.finishedAt?.toISOString() ?? null,
    error: run.error,
    items,
  };
}

/**
 * Cancels a queued or running run: no item is claimed any more, pending items become `cancelled`; items already
 * being run finish and are kept. False when the run had already ended.
 */
export async function cancelRun(db: Database, tenantId: string, id: string, actor?: Actor): Promise<boolean> {
  const row = await runRow(db, tenantId, id);
  if (!row) throw notFound("run");
  return db.transaction(async (tx) => {
    const ended = await tx
      .update(evalRun)
      .set({ status: "cancelled", cancelRequestedAt: sql`now()`, finishedAt: sql`now()` })
      .where(and(eq(evalRun.id, id), inArray(evalRun.status, ["queued", "running"])))
      .returning({ id: evalRun.id });
    if (!ended.length) return false;
    await tx
      .update(evalRunItem)
      .set({ status: "cancelled", finishedAt: sql`now()` })
      .where(and(eq(evalRunItem.runId, id), eq(evalRunItem.status, "pending")));
    if (actor)
      await recordChange(tx, actor, {
        tenantId,
        action: "eval.run_cancelled",
        objectType: "eval_run",
        objectId: id,
        before: { status: row.run.status },
        after: { status: "cancelled" },
      });
    return true;
  });
}
