import "server-only";
import { and, eq } from "drizzle-orm";
import type { Database } from "@/db";
import { evalDataset } from "@/db/schema";
import { AppError } from "@/lib/core/errors/app-error";
import { isUuid } from "@/lib/core/schema/uuid";

// What the dataset and run stores share: the batch size of their inserts, the validation error, a dataset's row.

/** Rows per insert statement. */
export const CHUNK = 500;

export const invalid = (fields: Record<string, string[]>, message = "the request is invalid") =>
  new AppError("validation_failed", message, { fields });

/** The tenant's dataset with this id (another tenant's is not found), or null. */
export async function datasetRow(db: Database, tenantId: string, id: string) {
  if (!isUuid(id)) return null;
  const [row] = await db
    .select()
    .from(evalDataset)
    .where(and(eq(evalDataset.tenantId, tenantId), eq(evalDataset.id, id)));
  return row ?? null;
}
