import "server-only";
import { and, asc, desc, eq, isNull, sql } from "drizzle-orm";
import type { Database } from "@/db";
import { type EvalInput, evalDataset, evalDatasetItem } from "@/db/schema";
import { type Actor, recordChange } from "@/lib/changes/changes";
import { AppError, notFound } from "@/lib/core/errors/app-error";
import { CHUNK, datasetRow, invalid } from "./rows";
import { listRuns } from "./runs";
import { scorerProblems } from "./scorers";
import type { NewDataset, NewItem, Scorer } from "./types";

/**
 * Evaluation datasets and runs of a tenant. Everything is tenant scoped: another tenant's dataset or run is not
 * found. A run copies its items (as they are, with their `updated_at`) × its targets into run items when it is
 * created; the runner (runner.ts) works through them.
 */

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
