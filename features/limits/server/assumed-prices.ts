import "server-only";
import { and, asc, eq } from "drizzle-orm";
import type { z } from "zod";
import type { Database } from "@/db";
import { tenantModelPrice } from "@/db/schema";
import type { AssumedPriceView, assumedPriceInput, UnpricedModel } from "@/features/limits/contracts";
import { type Actor, recordChange } from "@/lib/changes/changes";
import { AppError } from "@/lib/core/errors/app-error";
import { normalizeDecimal } from "@/lib/core/format/money";
import type { GatewayConfig } from "@/lib/gateway/config";
import { unpricedCandidates } from "@/lib/gateway/pricing";
import { invalidatePolicy } from "@/lib/pipeline/policy";

/** Every candidate of the gateway's aliases that no price covers (the offline model is free), with its aliases. */
export function unpricedModels(config: GatewayConfig): UnpricedModel[] {
  const byModel = new Map<string, UnpricedModel>();
  for (const { alias, provider, model } of unpricedCandidates(config)) {
    const key = `${provider}/${model}`;
    const seen = byModel.get(key) ?? { provider, model, aliases: [] };
    if (!seen.aliases.includes(alias)) seen.aliases.push(alias);
    byModel.set(key, seen);
  }
  return [...byModel.values()].sort((a, b) =>
    `${a.provider}/${a.model}`.localeCompare(`${b.provider}/${b.model}`),
  );
}

const viewOf = (row: typeof tenantModelPrice.$inferSelect): AssumedPriceView => ({
  provider: row.provider,
  model: row.model,
  input: normalizeDecimal(row.input),
  output: normalizeDecimal(row.output),
  cachedInput: row.cachedInput === null ? null : normalizeDecimal(row.cachedInput),
  cacheWrite: row.cacheWrite === null ? null : normalizeDecimal(row.cacheWrite),
  updatedAt: row.updatedAt,
});

/** The prices this tenant assumed, by provider and model. */
export async function listAssumedPrices(db: Database, tenantId: string): Promise<AssumedPriceView[]> {
  const rows = await db
    .select()
    .from(tenantModelPrice)
    .where(eq(tenantModelPrice.tenantId, tenantId))
    .orderBy(asc(tenantModelPrice.provider), asc(tenantModelPrice.model));
  return rows.map(viewOf);
}

/**
 * Sets (or, with `price: null`, removes) the price a tenant assumes for one of the gateway's candidates, and
 * records the change in the admin-change log. A provider or model the gateway would never call is refused: a
 * price for it could not apply to anything.
 */
export async function saveAssumedPrice(
  db: Database,
  config: GatewayConfig,
  tenantId: string,
  input: z.output<typeof assumedPriceInput>,
  actor: Actor,
): Promise<AssumedPriceView | null> {
  const candidates = Object.values(config.models).flatMap((m) => m.candidates);
  if (!candidates.some((c) => c.provider === input.provider))
    throw new AppError("validation_failed", "the request is invalid", {
      fields: { provider: [`no provider "${input.provider}" in the gateway config`] },
    });
  if (!candidates.some((c) => c.provider === input.provider && c.model === input.model))
    throw new AppError("validation_failed", "the request is invalid", {
      fields: { model: [`no alias of the gateway calls ${input.provider}/${input.model}`] },
    });
  const key = and(
    eq(tenantModelPrice.tenantId, tenantId),
    eq(tenantModelPrice.provider, input.provider),
    eq(tenantModelPrice.model, input.model),
  );
  const saved = await db.transaction(async (tx) => {
    const [previous] = await tx.select().from(tenantModelPrice).where(key).for("update");
    let row: typeof tenantModelPrice.$inferSelect | undefined;
    if (input.price === null) await tx.delete(tenantModelPrice).where(key);
    else {
      const values = { ...input.price, updatedBy: actor.id, updatedAt: new Date() };
      [row] = await tx
        .insert(tenantModelPrice)
        .values({ tenantId, provider: input.provider, model: input.model, ...values })
        .onConflictDoUpdate({
          target: [tenantModelPrice.tenantId, tenantModelPrice.provider, tenantModelPrice.model],
          set: values,
        })
        .returning();
    }
    const priceOf = (r: typeof tenantModelPrice.$inferSelect | undefined) => {
      if (!r) return null;
      const { updatedAt: _at, ...price } = viewOf(r);
      return price;
    };
    const before = priceOf(previous);
    const after = priceOf(row);
    if (JSON.stringify(before) !== JSON.stringify(after))
      await recordChange(tx, actor, {
        tenantId,
        action: after ? "assumed_price.set" : "assumed_price.removed",
        objectType: "assumed_price",
        objectId: `${input.provider}/${input.model}`,
        before,
        after,
      });
    return row ? viewOf(row) : null;
  });
  invalidatePolicy(tenantId);
  return saved;
}
