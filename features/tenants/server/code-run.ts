import "server-only";
import { eq } from "drizzle-orm";
import type { z } from "zod";
import type { Database } from "@/db";
import { tenant } from "@/db/schema";
import { type Actor, recordChange } from "@/lib/changes/changes";
import { notFound } from "@/lib/core/errors/app-error";
import type { CodeRunSettings, codeRunSettingsInput } from "../contracts";

/** The tenant's code_run setting (what code_run reads on every call). */
export async function readCodeRunSettings(db: Database, tenantId: string): Promise<CodeRunSettings> {
  const [row] = await db.select({ mode: tenant.codeRunMode }).from(tenant).where(eq(tenant.id, tenantId));
  if (!row) throw notFound("tenant");
  return row;
}

/** Sets whether the tenant's agent may run code (and read the conversation's files); a change is logged. */
export async function saveCodeRunSettings(
  db: Database,
  actor: Actor,
  tenantId: string,
  input: z.output<typeof codeRunSettingsInput>,
): Promise<CodeRunSettings> {
  const after: CodeRunSettings = { mode: input.mode };
  return db.transaction(async (tx) => {
    const [before] = await tx
      .select({ mode: tenant.codeRunMode })
      .from(tenant)
      .where(eq(tenant.id, tenantId))
      .for("update");
    if (!before) throw notFound("tenant");
    await tx.update(tenant).set({ codeRunMode: after.mode }).where(eq(tenant.id, tenantId));
    if (before.mode !== after.mode)
      await recordChange(tx, actor, {
        tenantId,
        action: "code_run_settings.updated",
        objectType: "code_run_settings",
        objectId: tenantId,
        before,
        after,
      });
    return after;
  });
}
