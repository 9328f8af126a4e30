import "server-only";
import { and, desc, eq, gte, isNotNull, ne, sql } from "drizzle-orm";
import type { z } from "zod";
import type { Database } from "@/db";
import {
  apiKey,
  appUser,
  type LimitScope,
  membership,
  sysAgentTurn,
  tenant,
  usageDaily,
  usageLimit,
} from "@/db/schema";
import type {
  EndUserSpend,
  GovernanceSettings,
  LimitValues,
  LimitView,
  limitsInput,
  tenantSettingsInput,
} from "@/features/limits/contracts";
import { type Actor, recordChange } from "@/lib/changes/changes";
import { AppError, notFound } from "@/lib/core/errors/app-error";
import { normalizeDecimal } from "@/lib/core/format/money";
import { archiveDefaults } from "@/lib/governance/archive/settings";
import { spentOn } from "@/lib/pipeline/allowances";
import { BUDGET_TTL, budgetKey, hasBudget, type Period } from "@/lib/pipeline/budget";
import type { CounterStore } from "@/lib/pipeline/counters";
import { fromNano, toNano } from "@/lib/pipeline/money";
import { endUserSubject, invalidatePolicy } from "@/lib/pipeline/policy";
import { windowsAt } from "@/lib/pipeline/windows";
import { listAssumedPrices } from "./assumed-prices";

const usdOrNull = (v: string | null) => (v === null ? null : normalizeDecimal(v));
const valuesOf = (row: typeof usageLimit.$inferSelect): LimitValues => ({
  requestsPerMinute: row.requestsPerMinute,
  tokensPerMinute: row.tokensPerMinute,
  dailySoftUsd: usdOrNull(row.dailySoftUsd),
  dailyHardUsd: usdOrNull(row.dailyHardUsd),
  monthlySoftUsd: usdOrNull(row.monthlySoftUsd),
  monthlyHardUsd: usdOrNull(row.monthlyHardUsd),
});

/** Everything the limits screen shows for a tenant: its settings, and the limits and spend of each scope. */
export async function readGovernanceSettings(
  db: Database,
  counters: CounterStore,
  tenantId: string,
): Promise<GovernanceSettings> {
  const [t] = await db.select().from(tenant).where(eq(tenant.id, tenantId)).limit(1);
  if (!t) throw notFound("tenant");
  const [limitRows, keys, members] = await Promise.all([
    db.select().from(usageLimit).where(eq(usageLimit.tenantId, tenantId)),
    db
      .select({
        id: apiKey.id,
        name: apiKey.name,
        prefix: apiKey.prefix,
        createdAt: apiKey.createdAt,
        lastUsedAt: apiKey.lastUsedAt,
        revokedAt: apiKey.revokedAt,
        allowedTools: apiKey.allowedTools,
        expiresAt: apiKey.expiresAt,
        rotatedFrom: apiKey.rotatedFrom,
        rotatedTo: apiKey.rotatedTo,
      })
      .from(apiKey)
      .where(eq(apiKey.tenantId, tenantId))
      .orderBy(sql`${apiKey.createdAt} desc`),
    db
      .select({ id: appUser.id, email: appUser.email, name: appUser.name, role: membership.role })
      .from(membership)
      .innerJoin(appUser, eq(appUser.id, membership.userId))
      .where(eq(membership.tenantId, tenantId))
      .orderBy(appUser.email),
  ]);
  const w = windowsAt(Date.now());
  // A template's spend is each end user's, on counters of their own: the top end users stand for it.
  const templates = new Map(
    limitRows.filter((r) => r.scope === "end_user_template").map((r) => [r.subjectId, valuesOf(r)]),
  );
  const scoped = limitRows.filter((r) => r.scope !== "end_user_template");
  const spendKeys = scoped.flatMap((r) => [
    budgetKey(r.scope, r.subjectId, "daily", w.day),
    budgetKey(r.scope, r.subjectId, "monthly", w.month),
  ]);
  const [spend, topEndUsers] = await Promise.all([
    spentOn(counters, tenantId, spendKeys),
    topEndUsersToday(db, tenantId, w.day),
  ]);
  const views = new Map<string, LimitView>();
  for (const [i, r] of scoped.entries())
    views.set(`${r.scope}:${r.subjectId}`, {
      ...valuesOf(r),
      spentToday: fromNano(spend[i * 2] ?? 0),
      spentThisMonth: fromNano(spend[i * 2 + 1] ?? 0),
    });

  return {
    retentionDays: t.retentionDays,
    cacheAliases: t.cacheAliases,
    cacheTtlSeconds: t.cacheTtlSeconds,
    maxOutputTokensDefault: t.maxOutputTokensDefault,
    archiveAfterDays: t.archiveAfterDays,
    archive: archiveDefaults(),
    tenantLimits: views.get(`tenant:${tenantId}`) ?? null,
    tenantEndUserLimits: templates.get(tenantId) ?? null,
    keys: keys.map((k) => ({
      ...k,
      limits: views.get(`key:${k.id}`) ?? null,
      endUserLimits: templates.get(k.id) ?? null,
    })),
    topEndUsers,
    users: members.map((m) => ({ ...m, limits: views.get(`user:${m.id}`) ?? null })),
    assumedPrices: await listAssumedPrices(db, tenantId),
  };
}

/**
 * One scope's limits with what its budget counters hold spent today and this month (UTC), as the limits page
 * shows them (readGovernanceSettings); null when the scope has no limits. `user` and `key` subjects are the
 * caller's to check: this reads only the tenant's own rows and counters.
 */
export async function readLimitView(
  db: Database,
  counters: CounterStore,
  tenantId: string,
  scope: "tenant" | "key" | "user",
  subjectId: string,
  now = Date.now(),
): Promise<LimitView | null> {
  const [row] = await db
    .select()
    .from(usageLimit)
    .where(
      and(
        eq(usageLimit.tenantId, tenantId),
        eq(usageLimit.scope, scope),
        eq(usageLimit.subjectId, subjectId),
      ),
    )
    .limit(1);
  if (!row) return null;
  const w = windowsAt(now);
  const [day, month] = await spentOn(counters, tenantId, [
    budgetKey(scope, subjectId, "daily", w.day),
    budgetKey(scope, subjectId, "monthly", w.month),
  ]);
  return { ...valuesOf(row), spentToday: fromNano(day ?? 0), spentThisMonth: fromNano(month ?? 0) };
}

/**
 * The ten end users of the tenant's API calls who spent most today (UTC), from the ledger. Unpriced calls are
 * counted apart, never as free: `costToday` sums the priced ones only, and is null when none was priced.
 */
async function topEndUsersToday(db: Database, tenantId: string, day: string): Promise<EndUserSpend[]> {
  const unpriced = sql`${sysAgentTurn.costStatus} = 'unpriced'`;
  const priced = sql<string | null>`sum(${sysAgentTurn.cost}) filter (where not ${unpriced})`;
  const rows = await db
    .select({
      endUser: sysAgentTurn.endUser,
      calls: sql<number>`count(*)::int`,
      unpricedCalls: sql<number>`count(*) filter (where ${unpriced})::int`,
      // A priced call with no cost (it failed before the model answered) adds nothing; only unpriced ones are unknown.
      costToday: sql<
        string | null
      >`case when count(*) filter (where not ${unpriced}) = 0 then null else coalesce(${priced}, 0)::text end`,
    })
    .from(sysAgentTurn)
    .where(
      and(
        eq(sysAgentTurn.tenantId, tenantId),
        isNotNull(sysAgentTurn.endUser),
        gte(sysAgentTurn.startedAt, sql`${`${day}T00:00:00Z`}::timestamptz`),
      ),
    )
    .groupBy(sysAgentTurn.endUser)
    .orderBy(sql`${priced} desc nulls last`, desc(sql`count(*)`), sysAgentTurn.endUser)
    .limit(10);
  return rows.map((r) => ({
    endUser: r.endUser ?? "",
    calls: Number(r.calls),
    unpricedCalls: Number(r.unpricedCalls),
    costToday: usdOrNull(r.costToday),
  }));
}

/** Sets a tenant's retention, archive window, response cache and output ceiling; an alias the gateway does not know is refused. */
export async function saveTenantSettings(
  db: Database,
  tenantId: string,
  input: z.output<typeof tenantSettingsInput>,
  knownAliases: string[],
  actor?: Actor,
): Promise<void> {
  const unknown = input.cacheAliases.filter((a) => !knownAliases.includes(a));
  if (unknown.length)
    throw new AppError("validation_failed", "the request is invalid", {
      fields: {
        cacheAliases: [`unknown model alias: ${unknown.join(", ")} (known: ${knownAliases.join(", ")})`],
      },
    });
  await db.transaction(async (tx) => {
    const [before] = await tx
      .select({
        retentionDays: tenant.retentionDays,
        cacheAliases: tenant.cacheAliases,
        cacheTtlSeconds: tenant.cacheTtlSeconds,
        maxOutputTokensDefault: tenant.maxOutputTokensDefault,
        archiveAfterDays: tenant.archiveAfterDays,
      })
      .from(tenant)
      .where(eq(tenant.id, tenantId))
      .for("update");
    if (!before) throw notFound("tenant");
    const after = {
      retentionDays: input.retentionDays,
      cacheAliases: [...new Set(input.cacheAliases)],
      cacheTtlSeconds: input.cacheTtlSeconds,
      maxOutputTokensDefault: input.maxOutputTokensDefault ?? before.maxOutputTokensDefault,
      archiveAfterDays:
        input.archiveAfterDays === undefined ? before.archiveAfterDays : input.archiveAfterDays,
    };
    // A retention cut below the archive window kept from before would archive nothing, silently.
    if (after.archiveAfterDays !== null && after.archiveAfterDays >= after.retentionDays)
      throw new AppError("validation_failed", "the request is invalid", {
        fields: {
          archiveAfterDays: [
            `shorter than the retention (${after.retentionDays} days): a month past retention is deleted, not archived`,
          ],
        },
      });
    await tx.update(tenant).set(after).where(eq(tenant.id, tenantId));
    if (actor && JSON.stringify(before) !== JSON.stringify(after))
      await recordChange(tx, actor, {
        tenantId,
        action: "tenant_settings.updated",
        objectType: "tenant_settings",
        objectId: tenantId,
        before,
        after,
      });
  });
  invalidatePolicy(tenantId);
}

/**
 * Sets (or, when every value is empty, removes) the limits of the tenant, one of its keys or one of its users, or
 * the per-end-user template of one of its keys or of the tenant (`end_user`, stored as `end_user_template`).
 * A budget set mid-day starts from what the ledger says was already spent today and this month (for a
 * template: by each end user the ledger names under it).
 */
export async function saveLimits(
  db: Database,
  counters: CounterStore,
  tenantId: string,
  input: z.output<typeof limitsInput>,
  actorId: string,
  actor?: Actor,
): Promise<LimitValues | null> {
  const { scope: asked, subjectId: given, ...raw } = input;
  const scope: LimitScope = asked === "end_user" ? "end_user_template" : asked;
  const values: LimitValues = {
    ...raw,
    dailySoftUsd: usdOrNull(raw.dailySoftUsd),
    dailyHardUsd: usdOrNull(raw.dailyHardUsd),
    monthlySoftUsd: usdOrNull(raw.monthlySoftUsd),
    monthlyHardUsd: usdOrNull(raw.monthlyHardUsd),
  };
  // A template without a key is the tenant's: it holds each end user of calls under any of its keys.
  const subjectId =
    scope === "tenant" ? tenantId : scope === "end_user_template" ? (given ?? tenantId) : given;
  if (!subjectId)
    throw new AppError("validation_failed", "the request is invalid", {
      fields: { subjectId: [`the id of the ${scope === "key" ? "API key" : "user"} is required`] },
    });
  await assertSubject(db, tenantId, scope, subjectId);
  const key = and(
    eq(usageLimit.tenantId, tenantId),
    eq(usageLimit.scope, scope),
    eq(usageLimit.subjectId, subjectId),
  );
  const cleared = Object.values(values).every((v) => v === null);
  await db.transaction(async (tx) => {
    const [previous] = await tx.select().from(usageLimit).where(key).for("update");
    if (cleared) await tx.delete(usageLimit).where(key);
    else
      await tx
        .insert(usageLimit)
        .values({ tenantId, scope, subjectId, ...values, updatedBy: actorId })
        .onConflictDoUpdate({
          target: [usageLimit.tenantId, usageLimit.scope, usageLimit.subjectId],
          set: { ...values, updatedBy: actorId, updatedAt: new Date() },
        });
    const before = previous ? valuesOf(previous) : null;
    const after = cleared ? null : values;
    if (actor && JSON.stringify(before) !== JSON.stringify(after))
      await recordChange(tx, actor, {
        tenantId,
        action: cleared ? "limits.removed" : "limits.set",
        objectType: "limits",
        objectId: `${scope}:${subjectId}`,
        before: before && { scope, subjectId, ...before },
        after: after && { scope, subjectId, ...after },
      });
  });
  invalidatePolicy(tenantId);
  if (cleared) return null;
  if (hasBudget({ scope, subjectId, ...values }))
    await (scope === "end_user_template"
      ? seedEndUserSpend(db, counters, tenantId, subjectId)
      : seedSpend(db, counters, tenantId, scope, subjectId));
  return values;
}

async function assertSubject(db: Database, tenantId: string, scope: LimitScope, subjectId: string) {
  if (scope === "tenant" || (scope === "end_user_template" && subjectId === tenantId)) return;
  const rows =
    scope === "key" || scope === "end_user_template"
      ? await db
          .select({ id: apiKey.id, revokedAt: apiKey.revokedAt })
          .from(apiKey)
          .where(and(eq(apiKey.tenantId, tenantId), eq(apiKey.id, subjectId)))
      : await db
          .select({ id: membership.userId })
          .from(membership)
          .where(and(eq(membership.tenantId, tenantId), eq(membership.userId, subjectId)));
  if (!rows.length) throw notFound(scope === "user" ? "member" : "API key");
  if ("revokedAt" in rows[0]! && rows[0].revokedAt)
    throw new AppError("conflict", "this API key is revoked; its limits no longer apply to anything");
}

/** Brings the day's and month's spend counters up to what the ledger already holds (never down). */
async function seedSpend(
  db: Database,
  counters: CounterStore,
  tenantId: string,
  scope: LimitScope,
  subjectId: string,
) {
  const w = windowsAt(Date.now());
  const monthStart = `${w.month}-01`;
  const spent: Record<Period, string> = { daily: "0", monthly: "0" };
  if (scope === "key") {
    const [row] = await db
      .select({
        day: sql<string>`coalesce(sum(${sysAgentTurn.cost}) filter (where ${sysAgentTurn.startedAt} >= ${`${w.day}T00:00:00Z`}::timestamptz), 0)::text`,
        month: sql<string>`coalesce(sum(${sysAgentTurn.cost}), 0)::text`,
      })
      .from(sysAgentTurn)
      .where(
        and(
          eq(sysAgentTurn.tenantId, tenantId),
          eq(sysAgentTurn.apiKeyId, subjectId),
          gte(sysAgentTurn.startedAt, sql`${`${monthStart}T00:00:00Z`}::timestamptz`),
        ),
      );
    spent.daily = row?.day ?? "0";
    spent.monthly = row?.month ?? "0";
  } else {
    const [row] = await db
      .select({
        day: sql<string>`coalesce(sum(${usageDaily.cost}) filter (where ${usageDaily.day} = ${w.day}), 0)::text`,
        month: sql<string>`coalesce(sum(${usageDaily.cost}), 0)::text`,
      })
      .from(usageDaily)
      .where(
        and(
          eq(usageDaily.tenantId, tenantId),
          gte(usageDaily.day, monthStart),
          ...(scope === "user" ? [eq(usageDaily.userId, subjectId), ne(usageDaily.source, "api")] : []),
        ),
      );
    spent.daily = row?.day ?? "0";
    spent.monthly = row?.month ?? "0";
  }
  const keys = {
    daily: budgetKey(scope, subjectId, "daily", w.day),
    monthly: budgetKey(scope, subjectId, "monthly", w.month),
  };
  const [day, month] = await spentOn(counters, tenantId, [keys.daily, keys.monthly]);
  const raise = [
    { key: keys.daily, amount: Math.max(0, toNano(spent.daily) - (day ?? 0)), ttlSeconds: BUDGET_TTL.daily },
    {
      key: keys.monthly,
      amount: Math.max(0, toNano(spent.monthly) - (month ?? 0)),
      ttlSeconds: BUDGET_TTL.monthly,
    },
  ];
  await counters.add(tenantId, raise);
}

/**
 * Brings each end user's day and month spend counters under a template up to what the ledger holds of their
 * calls under its key (or any key, for the tenant's): counters keyed as the pipeline keys them (limitsOf).
 */
async function seedEndUserSpend(db: Database, counters: CounterStore, tenantId: string, subjectId: string) {
  const w = windowsAt(Date.now());
  const rows = await db
    .select({
      endUser: sysAgentTurn.endUser,
      day: sql<string>`coalesce(sum(${sysAgentTurn.cost}) filter (where ${sysAgentTurn.startedAt} >= ${`${w.day}T00:00:00Z`}::timestamptz), 0)::text`,
      month: sql<string>`coalesce(sum(${sysAgentTurn.cost}), 0)::text`,
    })
    .from(sysAgentTurn)
    .where(
      and(
        eq(sysAgentTurn.tenantId, tenantId),
        isNotNull(sysAgentTurn.endUser),
        gte(sysAgentTurn.startedAt, sql`${`${w.month}-01T00:00:00Z`}::timestamptz`),
        ...(subjectId === tenantId ? [] : [eq(sysAgentTurn.apiKeyId, subjectId)]),
      ),
    )
    .groupBy(sysAgentTurn.endUser);
  const owed = rows.filter((r) => r.endUser && toNano(r.month) > 0);
  if (!owed.length) return;
  const keys = owed.flatMap((r) => {
    const subject = `${subjectId}:${endUserSubject(r.endUser!)}`;
    return [
      budgetKey("end_user_template", subject, "daily", w.day),
      budgetKey("end_user_template", subject, "monthly", w.month),
    ];
  });
  const held = await spentOn(counters, tenantId, keys);
  const raise = owed.flatMap((r, i) => [
    {
      key: keys[i * 2]!,
      amount: Math.max(0, toNano(r.day) - (held[i * 2] ?? 0)),
      ttlSeconds: BUDGET_TTL.daily,
    },
    {
      key: keys[i * 2 + 1]!,
      amount: Math.max(0, toNano(r.month) - (held[i * 2 + 1] ?? 0)),
      ttlSeconds: BUDGET_TTL.monthly,
    },
  ]);
  await counters.add(tenantId, raise);
}
