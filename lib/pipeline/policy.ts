import "server-only";
import { and, eq, or } from "drizzle-orm";
import type { Database } from "@/db";
import { type LimitScope, tenant, tenantModelPrice, type UsageLimit, usageLimit } from "@/db/schema";
import { normalizeDecimal } from "@/lib/core/format/money";
import { processSlot } from "@/lib/core/process/process-state";
import type { ModelPrice, PriceTable } from "@/lib/gateway/pricing";

/** One usage_limit row as a call meets it: whose limits (scope, subject) and their values (null: no limit). */
export type ScopedLimit = Omit<UsageLimit, "tenantId" | "updatedAt" | "updatedBy">;

/**
 * What the pipeline applies to one call: the tenant's cache settings, every limit that covers the call, and the
 * output ceiling sent with a call that sets no max_tokens under a hard budget.
 */
export type Policy = {
  cacheAliases: string[];
  cacheTtlSeconds: number;
  limits: ScopedLimit[];
  maxOutputTokensDefault: number;
  /** Prices the tenant admin assumed for models without one, keyed `provider/model` (USD per 1M tokens). */
  assumedPrices: PriceTable;
};

/** The output ceiling of a tenant that has not set its own (tenant.max_output_tokens_default). */
export const DEFAULT_MAX_OUTPUT_TOKENS = 4096;

/** Who makes a call: the tenant, and the API key (API calls) or the user (drawer and scheduled turns). */
export type Caller = { tenantId: string; apiKeyId: string | null; userId: string | null };

const POLICY_CACHE_MS = 5_000;
// Once per process, so every bundle of the app (Next builds one per route) clears and reads the same cache.
const cache = processSlot("pipeline.policyCache", () => new Map<string, { policy: Policy; until: number }>());

export const SCOPE_LABEL: Record<LimitScope, string> = {
  tenant: "tenant",
  key: "API key",
  user: "user",
};

/**
 * The policy of a call, cached for 5 s per process: a change made here is seen at once (the cache is cleared),
 * a change made on another instance within 5 s.
 */
export async function loadPolicy(db: Database, caller: Caller, now = Date.now()): Promise<Policy> {
  const cacheKey = `${caller.tenantId}:${caller.apiKeyId ?? ""}:${caller.userId ?? ""}`;
  const hit = cache.get(cacheKey);
  if (hit && hit.until > now) return hit.policy;
  const [settings] = await db
    .select({
      cacheAliases: tenant.cacheAliases,
      cacheTtlSeconds: tenant.cacheTtlSeconds,
      maxOutputTokensDefault: tenant.maxOutputTokensDefault,
    })
    .from(tenant)
    .where(eq(tenant.id, caller.tenantId))
    .limit(1);
  const subjects = [eq(usageLimit.scope, "tenant")];
  if (caller.apiKeyId)
    subjects.push(and(eq(usageLimit.scope, "key"), eq(usageLimit.subjectId, caller.apiKeyId))!);
  // A user's limits cover what they do in the app; API calls are covered by their key's.
  else if (caller.userId)
    subjects.push(and(eq(usageLimit.scope, "user"), eq(usageLimit.subjectId, caller.userId))!);
  const rows = await db
    .select()
    .from(usageLimit)
    .where(and(eq(usageLimit.tenantId, caller.tenantId), or(...subjects)));
  const assumed = await db
    .select()
    .from(tenantModelPrice)
    .where(eq(tenantModelPrice.tenantId, caller.tenantId));
  const policy: Policy = {
    cacheAliases: settings?.cacheAliases ?? [],
    cacheTtlSeconds: settings?.cacheTtlSeconds ?? 3600,
    limits: rows.map(({ tenantId: _t, updatedAt: _u, updatedBy: _b, ...limit }) => limit),
    maxOutputTokensDefault: settings?.maxOutputTokensDefault ?? DEFAULT_MAX_OUTPUT_TOKENS,
    assumedPrices: Object.fromEntries(
      assumed.map((row) => [`${row.provider}/${row.model}`, priceOfRow(row)]),
    ),
  };
  cache.set(cacheKey, { policy, until: now + POLICY_CACHE_MS });
  return policy;
}

/** An assumed-price row as a price ("1.5000000000" → "1.5"; unset cache prices fall back to input). */
function priceOfRow(row: typeof tenantModelPrice.$inferSelect): ModelPrice {
  const price: ModelPrice = { input: normalizeDecimal(row.input), output: normalizeDecimal(row.output) };
  if (row.cachedInput !== null) price.cachedInput = normalizeDecimal(row.cachedInput);
  if (row.cacheWrite !== null) price.cacheWrite = normalizeDecimal(row.cacheWrite);
  return price;
}

/** Forgets cached policies of a tenant (after an admin changed its settings or limits). */
export function invalidatePolicy(tenantId?: string): void {
  if (!tenantId) {
    cache.clear();
    return;
  }
  for (const key of cache.keys()) if (key.startsWith(`${tenantId}:`)) cache.delete(key);
}
