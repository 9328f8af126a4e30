import "server-only";
import Big from "big.js";
import { and, asc, desc, eq, inArray, isNull, sql } from "drizzle-orm";
import type { Database } from "@/db";
import {
  type EvalInput,
  evalDataset,
  evalDatasetItem,
  evalRun,
  evalRunItem,
  sysAgentAudit,
  sysAgentMessage,
  sysAgentTurn,
} from "@/db/schema";
import { describeRef, findVersion } from "@/features/prompts/server";
import { type Actor, recordChange } from "@/lib/changes/changes";
import { AppError, notFound } from "@/lib/core/errors/app-error";
import { isUuid } from "@/lib/core/schema/uuid";
import { csvField } from "@/lib/core/text/csv";
import { DEFAULT_SCORERS, scorerProblems } from "./scorers";
import type {
  NewDataset,
  NewItem,
  NewRun,
  RunItemView,
  RunStatus,
  RunView,
  Scorer,
  Target,
  TargetSummary,
} from "./types";

/**
 * Evaluation datasets and runs of a tenant. Everything is tenant scoped: another tenant's dataset or run is not
 * found. A run copies its items (as they are, with their `updated_at`) × its targets into run items when it is
 * created; the runner (runner.ts) works through them.
 */

const CHUNK = 500;

export type DatasetSummary = {
  id: string;
  name: string;
  description: string | null;
  items: number;
  scorers: Scorer[];
  createdAt: Date;
  updatedAt: Date;
  archived: boolean;
};

export type DatasetItemView = {
  id: string;
  input: EvalInput;
  expected: unknown;
  metadata: Record<string, unknown>;
  sourceTurnId: string | null;
  createdAt: Date;
  updatedAt: Date;
};

const invalid = (fields: Record<string, string[]>, message = "the request is invalid") =>
  new AppError("validation_failed", message, { fields });

async function datasetRow(db: Database, tenantId: string, id: string) {
  if (!isUuid(id)) return null;
  const [row] = await db
    .select()
    .from(evalDataset)
    .where(and(eq(evalDataset.tenantId, tenantId), eq(evalDataset.id, id)));
  return row ?? null;
}

async function insertItems(
  db: Pick<Database, "insert">,
  tenantId: string,
  datasetId: string,
  items: (NewItem & { sourceTurnId?: string })[],
) {
  const ids: string[] = [];
  for (let i = 0; i < items.length; i += CHUNK) {
    const rows = await db
      .insert(evalDatasetItem)
      .values(
        items.slice(i, i + CHUNK).map((item) => ({
          tenantId,
          datasetId,
          input: item.input,
          expected: item.expected ?? null,
          metadata: item.metadata ?? {},
          sourceTurnId: item.sourceTurnId ?? null,
        })),
      )
      .returning({ id: evalDatasetItem.id });
    ids.push(...rows.map((r) => r.id));
  }
  return ids;
}

/** Creates a dataset with its items; a name the tenant already uses is a 409. */
export async function createDataset(
  db: Database,
  tenantId: string,
  input: NewDataset,
  actor: Actor,
): Promise<{ id: string; items: number }> {
  const problems = scorerProblems(input.scorers ?? []);
  if (Object.keys(problems).length) throw invalid(problems);
  return db.transaction(async (tx) => {
    const [taken] = await tx
      .select({ id: evalDataset.id })
      .from(evalDataset)
      .where(and(eq(evalDataset.tenantId, tenantId), eq(evalDataset.name, input.name)));
    if (taken) throw new AppError("conflict", `a dataset named "${input.name}" already exists`);
    const [row] = await tx
      .insert(evalDataset)
      .values({
        tenantId,
        name: input.name,
        description: input.description ?? null,
        scorers: input.scorers ?? [],
        createdBy: actor.id,
      })
      .returning({ id: evalDataset.id });
    await insertItems(tx, tenantId, row!.id, input.items);
    await recordChange(tx, actor, {
      tenantId,
      action: "eval.dataset_created",
      objectType: "eval_dataset",
      objectId: row!.id,
      before: null,
      after: { name: input.name, items: input.items.length, scorers: input.scorers ?? [] },
    });
    return { id: row!.id, items: input.items.length };
  });
}

/** Appends items to a dataset (all or nothing); an archived dataset takes none. */
export async function appendItems(
  db: Database,
  tenantId: string,
  datasetId: string,
  items: (NewItem & { sourceTurnId?: string })[],
): Promise<{ ids: string[] }> {
  const dataset = await datasetRow(db, tenantId, datasetId);
  if (!dataset) throw notFound("dataset");
  if (dataset.archivedAt) throw new AppError("conflict", `dataset "${dataset.name}" is archived`);
  if (!items.length) throw invalid({ items: ["no items to add"] });
  return db.transaction(async (tx) => {
    const ids = await insertItems(tx, tenantId, datasetId, items);
    await tx.update(evalDataset).set({ updatedAt: sql`now()` }).where(eq(evalDataset.id, datasetId));
    return { ids };
  });
}

export async function listDatasets(db: Database, tenantId: string): Promise<DatasetSummary[]> {
  const rows = await db
    .select({
      row: evalDataset,
      items: sql<number>`(select count(*)::int from ${evalDatasetItem} where ${evalDatasetItem.datasetId} = ${evalDataset.id} and ${evalDatasetItem.archivedAt} is null)`,
    })
    .from(evalDataset)
    .where(eq(evalDataset.tenantId, tenantId))
    .orderBy(desc(evalDataset.updatedAt));
  return rows.map(({ row, items }) => summaryOf(row, Number(items)));
}

const summaryOf = (row: typeof evalDataset.$inferSelect, items: number): DatasetSummary => ({
  id: row.id,
  name: row.name,
  description: row.description,
  items,
  scorers: row.scorers as Scorer[],
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
  archived: row.archivedAt !== null,
});

async function itemsOf(db: Database, datasetId: string): Promise<DatasetItemView[]> {
  const rows = await db
    .select()
    .from(evalDatasetItem)
    .where(and(eq(evalDatasetItem.datasetId, datasetId), isNull(evalDatasetItem.archivedAt)))
    .orderBy(asc(evalDatasetItem.createdAt), asc(evalDatasetItem.id));
  return rows.map((r) => ({
    id: r.id,
    input: r.input,
    expected: r.expected ?? null,
    metadata: r.metadata,
    sourceTurnId: r.sourceTurnId,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  }));
}

/** A dataset with its items, and its runs (newest first). */
export async function getDataset(db: Database, tenantId: string, id: string) {
  const row = await datasetRow(db, tenantId, id);
  if (!row) throw notFound("dataset");
  const items = await itemsOf(db, row.id);
  return { ...summaryOf(row, items.length), items, runs: await listRuns(db, tenantId, row.id) };
}

/** The tenant's dataset of this name (the CLI names datasets), or a 404. */
export async function findDatasetByName(db: Database, tenantId: string, name: string) {
  const [row] = await db
    .select()
    .from(evalDataset)
    .where(and(eq(evalDataset.tenantId, tenantId), eq(evalDataset.name, name)));
  if (!row) throw notFound(`dataset "${name}"`);
  const items = await itemsOf(db, row.id);
  return { ...summaryOf(row, items.length), items };
}

export async function archiveDataset(db: Database, tenantId: string, id: string, actor: Actor) {
  const row = await datasetRow(db, tenantId, id);
  if (!row) throw notFound("dataset");
  if (row.archivedAt) return { archived: true };
  await db.transaction(async (tx) => {
    await tx.update(evalDataset).set({ archivedAt: sql`now()` }).where(eq(evalDataset.id, id));
    await recordChange(tx, actor, {
      tenantId,
      action: "eval.dataset_archived",
      objectType: "eval_dataset",
      objectId: id,
      before: { name: row.name },
      after: null,
    });
  });
  return { archived: true };
}

type Message = { role: "system" | "user" | "assistant"; content: string };
const ROLE_LINE = /^(system|user|assistant|instructions|developer): ?(.*)$/;

/**
 * The messages of a call's `request` audit event ("role: content" lines, a message's further lines
 * following it); `instructions` and `developer` become system messages.
 */
export function messagesOfRequest(text: string): Message[] {
  const out: Message[] = [];
  for (const line of text.split("\n")) {
    const m = line.match(ROLE_LINE);
    if (m) {
      const role = m[1] === "user" || m[1] === "assistant" ? m[1] : "system";
      out.push({ role, content: m[2] ?? "" });
    } else if (out.length) out[out.length - 1]!.content += `\n${line}`;
  }
  return out
    .map((m) => ({ ...m, content: m.content.replace(/\n+$/, "") }))
    .filter((m) => m.content.trim() !== "");
}

/** Who asks for a turn's content: a tenant admin reads any turn of the tenant, anyone else only their own. */
export type TurnReader = { userId: string; admin: boolean };

/**
 * An item made from a ledger turn ("Add to dataset"): a drawer turn gives its conversation's messages up to it
 * (the users' messages and the answers between them) with its own answer as the expected output; an API call
 * (or a playground or eval call) gives the request's messages from its `request` audit event, and its answer when
 * one was recorded. The ledger and audit are the admins', so a prompt editor may use only their own turns; any
 * other turn is not found, exactly like a turn id that does not exist.
 */
export async function itemFromTurn(
  db: Database,
  tenantId: string,
  turnId: string,
  reader: TurnReader,
): Promise<{ input: EvalInput; expected: string | null; metadata: Record<string, unknown> }> {
  if (!isUuid(turnId)) throw notFound("turn");
  const [turn] = await db
    .select()
    .from(sysAgentTurn)
    .where(
      and(
        eq(sysAgentTurn.tenantId, tenantId),
        eq(sysAgentTurn.id, turnId),
        reader.admin ? undefined : eq(sysAgentTurn.userId, reader.userId),
      ),
    );
  if (!turn) throw notFound("turn");
  const audit = await db
    .select({ type: sysAgentAudit.type, payload: sysAgentAudit.payload })
    .from(sysAgentAudit)
    .where(
      and(
        eq(sysAgentAudit.tenantId, tenantId),
        eq(sysAgentAudit.turnId, turnId),
        inArray(sysAgentAudit.type, ["request", "answer"]),
      ),
    )
    .orderBy(asc(sysAgentAudit.seq));
  const answerEvent = audit.filter((a) => a.type === "answer").at(-1);
  let expected = typeof answerEvent?.payload.text === "string" ? answerEvent.payload.text : null;
  let messages: Message[] = [];
  if (turn.conversationId) {
    const rows = await db
      .select({
        seq: sysAgentMessage.seq,
        turnId: sysAgentMessage.turnId,
        role: sysAgentMessage.role,
        parts: sysAgentMessage.parts,
      })
      .from(sysAgentMessage)
      .where(
        and(
          eq(sysAgentMessage.tenantId, tenantId),
          eq(sysAgentMessage.sessionId, turn.conversationId),
          isNull(sysAgentMessage.supersededAt),
        ),
      )
      .orderBy(asc(sysAgentMessage.seq));
    const own = rows.filter((r) => r.turnId === turnId);
    const last = own.length ? own.at(-1)!.seq : null;
    const firstOwn = own.find((r) => r.role === "user")?.seq ?? own[0]?.seq;
    if (last !== null && firstOwn !== undefined) {
      for (const r of rows) {
        if (r.seq > last) break;
        if (r.parts.kind === "display" || r.parts.kind === "notification") continue;
        if (r.role === "user") messages.push({ role: "user", content: r.parts.content });
        // Earlier answers stay as context; this turn's answer is the expected output.
        else if (r.role === "assistant" && r.seq < firstOwn && r.parts.content.trim())
          messages.push({ role: "assistant", content: r.parts.content });
      }
      if (expected === null) {
        const answer = own.filter((r) => r.role === "assistant" && r.parts.content.trim()).at(-1);
        expected = answer?.parts.content ?? null;
      }
    }
  }
  if (!messages.length) {
    const request = audit.find((a) => a.type === "request");
    if (typeof request?.payload.message === "string") messages = messagesOfRequest(request.payload.message);
  }
  if (!messages.some((m) => m.role === "user"))
    throw new AppError("validation_failed", "this turn has no user message to make a case of", {
      fields: { turnId: ["the turn's request has no user message"] },
    });
  return {
    input: { messages },
    expected,
    metadata: { source: turn.source, model: turn.requestedModel },
  };
}

// ---------------------------------------------------------------------------------------------------------
// Runs

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

const csvCell = (value: unknown): string => {
  const text =
    value === null || value === undefined ? "" : typeof value === "string" ? value : JSON.stringify(value);
  return csvField(text);
};

/** The run's items as CSV, one line per item and target, with exact costs. */
export async function runCsv(db: Database, tenantId: string, id: string): Promise<string> {
  const run = await getRun(db, tenantId, id);
  const header = [
    "item_id",
    "target",
    "model",
    "prompt",
    "status",
    "passed",
    "score",
    "latency_ms",
    "cost_usd",
    "output",
    "expected",
    "input",
    "scores",
    "error",
    "turn_id",
  ];
  const lines = [header.join(",")];
  for (const item of run.items) {
    const target = run.targets[item.targetIndex]!;
    lines.push(
      [
        item.itemId,
        item.targetIndex,
        target.model,
        target.prompt ? `${target.prompt.name}@${target.prompt.version ?? target.prompt.label}` : "",
        item.status,
        item.passed === null ? "" : String(item.passed),
        item.score ?? "",
        item.latencyMs ?? "",
        item.cost ?? "",
        item.output,
        item.expected,
        item.input,
        item.scores?.map((s) => `${s.type}:${s.passed ? "pass" : "fail"} ${s.reason}`).join("; ") ?? "",
        item.error,
        item.turnId,
      ]
        .map(csvCell)
        .join(","),
    );
  }
  return `${lines.join("\n")}\n`;
}
