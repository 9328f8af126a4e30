import "server-only";
import { createHash } from "node:crypto";
import { and, eq, inArray, or } from "drizzle-orm";
import type { Database } from "@/db";
import {
  apiKey,
  type LimitScope,
  type RunCeiling,
  runCeiling,
  tenant,
  tenantModelPrice,
  type UsageLimit,
  usageLimit,
} from "@/db/schema";
import { dependencyFailure } from "@/lib/core/errors/dependency";
import { normalizeDecimal } from "@/lib/core/format/money";
import { processSlot } from "@/lib/core/process/process-state";
import type { ModelPrice, PriceTable } from "@/lib/gateway/pricing";

/**
 * One usage_limit row as a call meets it: whose limits (scope, subject) and their values (null: no limit). A
 * line of an end-user template names its end user, and the subject is the template's subject and the end user.
 */
export type ScopedLimit = Omit<UsageLimit, "tenantId" | "updatedAt" | "updatedBy"> & {
  endUser?: { name: string; template: string };
};

/** One run_ceiling row as a call meets it (lib/pipeline/run-ceiling.ts): whose ceilings, and their values. */
export type ScopedRunCeiling = Omit<RunCeiling, "tenantId" | "updatedAt" | "updatedBy">;

/** A per-end-user template (scope `end_user_template`), and whose it is as a refusal says it ("key 'x'"). */
export type EndUserTemplate = ScopedLimit & { template: string };

/**
 * What the pipeline applies to one call: the tenant's cache settings, every limit that covers the call, and the
 * output ceiling sent with a call that sets no max_tokens under a hard budget.
 */
export type Policy = {
  cacheAliases: string[];
  cacheTtlSeconds: number;
  limits: ScopedLimit[];
  /** The templates each end user of the call's key, and of the tenant, is held to (API calls only). */
  endUserTemplates?: EndUserTemplate[];
  maxOutputTokensDefault: number;
  /** The ceilings of every run of the tenant and of the call's key (lib/pipeline/run-ceiling.ts); absent: none. */
  runCeilings?: ScopedRunCeiling[];
  /** Prices the tenant admin assumed for models without one, keyed `provider/model` (USD per 1M tokens). */
  assumedPrices: PriceTable;
};

/** The output ceiling of a tenant that has not set its own (tenant.max_output_tokens_default). */
export const DEFAULT_MAX_OUTPUT_TOKENS = 4096;

/**
 * Who makes a call: the tenant, and the API key (API calls) or the user (drawer and scheduled turns); for an API
 * call, the end user its app named (`user`, `x-tollgate-end-user`…), when it named one.
 */
export type Caller = {
  tenantId: string;
  apiKeyId: string | null;
  userId: string | null;
  endUser?: string;
  /** The run the call belongs to (lib/turns/run-id.ts): its run ceilings apply (not part of the policy's key). */
  runId?: string;
};

const POLICY_CACHE_MS = 5_000;
/** How long past its 5 s a cached policy may still serve while the database does not answer (an outage). */
const POLICY_STALE_MS = 10 * 60_000;
// Once per process, so every bundle of the app (Next builds one per route) clears and reads the same cache.
const cache = processSlot("pipeline.policyCache", () => new Map<string, { policy: Policy; until: number }>());

export const SCOPE_LABEL: Record<LimitScope, string> = {
  tenant: "tenant",
  key: "API key",
  user: "user",
  end_user_template: "end user",
};

/** Who a limit holds, as a refusal names it: "this API key", or `the end user "alice" (key 'x' template)`. */
export function subjectOf(limit: ScopedLimit): string {
  if (!limit.endUser) return `this ${SCOPE_LABEL[limit.scope]}`;
  const name = limit.endUser.name;
  const shown = name.length > 64 ? `${name.slice(0, 63)}…` : name;
  return `the end user ${JSON.stringify(shown)} (${limit.endUser.template} template)`;
}

/**
 * The limits a call meets: the policy's, and one line per end-user template for the call's end user, on its own
 * counters (template subject and end user). A call that names no end user, or a key without a template, meets
 * the policy's limits as they are (nothing computed).
 */
export function limitsOf(policy: Policy, caller: Caller): ScopedLimit[] {
  const templates = policy.endUserTemplates;
  const name = caller.endUser;
  if (!templates?.length || !name) return policy.limits;
  // Both steps ask, each twice (applies, then the step): worked out once per call.
  const seen = endUserLines.get(caller);
  if (seen?.policy === policy) return seen.lines;
  const who = endUserSubject(name);
  const lines = [
    ...policy.limits,
    ...templates.map(({ template, ...limit }) => ({
      ...limit,
      subjectId: `${limit.subjectId}:${who}`,
      endUser: { name, template },
    })),
  ];
  endUserLines.set(caller, { policy, lines });
  return lines;
}
const endUserLines = new WeakMap<Caller, { policy: Policy; lines: ScopedLimit[] }>();

/**
 * An end user as a counter key names it: as given when short and plain, else a hash (a `#` a plain name cannot
 * hold, so the two never meet), so a counter key stays short and no end user's name can look like another's.
 */
export function endUserSubject(name: string): string {
  if (name.length <= 64 && /^[\w.@+-]+$/.test(name)) return name;
  return `#${createHash("sha256").update(name).digest("base64url")}`;
}

/**
 * The policy of a call, cached for 5 s per process: a change made here is seen at once (the cache is cleared),
 * a change made on another instance within 5 s.
 */
export async function loadPolicy(db: Database, caller: Caller, now = Date.now()): Promise<Policy> {
  const cacheKey = `${caller.tenantId}:${caller.apiKeyId ?? ""}:${caller.userId ?? ""}`;
  const hit = cache.get(cacheKey);
  if (hit && hit.until > now) return hit.policy;
  try {
    return await readPolicy(db, caller, cacheKey, now);
  } catch (error) {
    // The database does not answer: the policy this process read last for this caller stands in for a while, so
    // calls keep their limits through an outage (no change can be saved while it lasts; one saved here cleared the
    // entry). Without one the call is refused (pipeline.ts), never let through without its limits.
    if (hit && now - hit.until <= POLICY_STALE_MS && dependencyFailure(error)) return hit.policy;
    throw error;
  }
}

async function readPolicy(db: Database, caller: Caller, cacheKey: string, now: number): Promise<Policy> {
  // Four independent reads, sent together: a policy miss costs one round trip, not four.
  const settingsRead = db
    .select({
      cacheAliases: tenant.cacheAliases,
      cacheTtlSeconds: tenant.cacheTtlSeconds,
      maxOutputTokensDefault: tenant.maxOutputTokensDefault,
    })
    .from(tenant)
    .where(eq(tenant.id, caller.tenantId))
    .limit(1);
  const subjects = [eq(usageLimit.scope, "tenant")];
  if (caller.apiKeyId) {
    subjects.push(and(eq(usageLimit.scope, "key"), eq(usageLimit.subjectId, caller.apiKeyId))!);
    // The end-user templates of the key and of the tenant, in the same query: a key without one costs nothing.
    subjects.push(
      and(
        eq(usageLimit.scope, "end_user_template"),
        inArray(usageLimit.subjectId, [caller.apiKeyId, caller.tenantId]),
      )!,
    );
  }
  // A user's limits cover what they do in the app; API calls are covered by their key's.
  else if (caller.userId)
    subjects.push(and(eq(usageLimit.scope, "user"), eq(usageLimit.subjectId, caller.userId))!);
  const rowsRead = db
    .select({ limit: usageLimit, keyName: apiKey.name })
    .from(usageLimit)
    .leftJoin(apiKey, and(eq(usageLimit.scope, "end_user_template"), eq(apiKey.id, usageLimit.subjectId)))
    .where(and(eq(usageLimit.tenantId, caller.tenantId), or(...subjects)));
  const assumedRead = db
    .select()
    .from(tenantModelPrice)
    .where(eq(tenantModelPrice.tenantId, caller.tenantId));
  // The tenant's run ceilings and the key's (a drawer turn has no key: the tenant's alone).
  const ceilingsRead = db
    .select({
      scope: runCeiling.scope,
      subjectId: runCeiling.subjectId,
      maxUsd: runCeiling.maxUsd,
      maxCalls: runCeiling.maxCalls,
      maxTokens: runCeiling.maxTokens,
      maxSeconds: runCeiling.maxSeconds,
    })
    .from(runCeiling)
    .where(
      and(
        eq(runCeiling.tenantId, caller.tenantId),
        caller.apiKeyId
          ? or(
              eq(runCeiling.scope, "tenant"),
              and(eq(runCeiling.scope, "key"), eq(runCeiling.subjectId, caller.apiKeyId)),
            )
          : eq(runCeiling.scope, "tenant"),
      ),
    );
  const [[settings], rows, assumed, ceilings] = await Promise.all([
    settingsRead,
    rowsRead,
    assumedRead,
    ceilingsRead,
  ]);
  const limits: ScopedLimit[] = [];
  const endUserTemplates: EndUserTemplate[] = [];
  for (const { limit: row, keyName } of rows) {
    const { tenantId: _t, updatedAt: _u, updatedBy: _b, ...limit } = row;
    if (row.scope !== "end_user_template") limits.push(limit);
    else {
      const template =
        row.subjectId === caller.tenantId ? "the tenant's" : `key '${keyName ?? row.subjectId}'`;
      endUserTemplates.push({ ...limit, template });
    }
  }
  const policy: Policy = {
    cacheAliases: settings?.cacheAliases ?? [],
    cacheTtlSeconds: settings?.cacheTtlSeconds ?? 3600,
    limits,
    ...(endUserTemplates.length ? { endUserTemplates } : {}),
    ...(ceilings.length ? { runCeilings: ceilings } : {}),
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
