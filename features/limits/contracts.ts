// What the limits and tenant-settings routes take and answer, shared by the routes and the browser.
// Browser-safe: zod (and big.js for exact amounts) only.
import Big from "big.js";
import type { KeyView } from "@/features/keys/contracts";
import { z } from "@/lib/core/schema/zod";

const USD_AMOUNT = /^\d{1,10}(\.\d{1,10})?$/;
const usdAmount = z.string().trim().regex(USD_AMOUNT, "an amount in USD, such as 25 or 0.50").nullable();
const perMinute = z
  .number()
  .int()
  .min(1, "at least 1 (leave empty for no limit)")
  .max(100_000_000)
  .nullable();

/** The limits of one scope, as an admin sets them: each may be empty (no limit); soft never above hard. */
export const limitValuesInput = z
  .object({
    requestsPerMinute: perMinute.default(null),
    tokensPerMinute: perMinute.default(null),
    dailySoftUsd: usdAmount.default(null),
    dailyHardUsd: usdAmount.default(null),
    monthlySoftUsd: usdAmount.default(null),
    monthlyHardUsd: usdAmount.default(null),
  })
  .superRefine((v, ctx) => {
    for (const period of ["daily", "monthly"] as const) {
      const soft = v[`${period}SoftUsd`];
      const hard = v[`${period}HardUsd`];
      // Zod still runs this when a field failed its own check: compare only amounts that are valid.
      const comparable = (x: unknown): x is string => typeof x === "string" && USD_AMOUNT.test(x);
      if (comparable(soft) && comparable(hard) && new Big(soft).gt(hard))
        ctx.addIssue({
          code: "custom",
          path: [`${period}SoftUsd`],
          message: `the soft limit warns before the hard one refuses, so it cannot be above ${hard}`,
        });
    }
  });
/** Requests and tokens per minute, and USD budgets as decimal strings, exactly as stored (null: no limit). */
export type LimitValues = z.output<typeof limitValuesInput>;

/** `end_user`: the template each end user of a key's calls (`subjectId`), or of the tenant's, is held to. */
export const limitScope = z.enum(["tenant", "key", "user", "end_user"]);
export type LimitScope = z.infer<typeof limitScope>;

/**
 * PUT /api/governance/limits: the tenant's own limits, or one key's or user's (`subjectId`); or the per-end-user
 * template of one key (`scope: "end_user"` with the key's id) or of the tenant (`scope: "end_user"` alone).
 */
export const limitsInput = z.intersection(
  z.object({
    scope: limitScope,
    subjectId: z.uuid("the id of an API key or a user of this tenant").optional(),
  }),
  limitValuesInput,
);

/** PUT /api/governance/settings */
export const tenantSettingsInput = z
  .object({
    retentionDays: z.number().int().min(1, "keep at least 1 day").max(3650, "at most 3650 days (10 years)"),
    cacheAliases: z.array(z.string().min(1)).max(100),
    cacheTtlSeconds: z
      .number()
      .int()
      .min(10, "at least 10 seconds")
      .max(30 * 86_400, "at most 30 days"),
    /** Output tokens sent with a call that sets no max_tokens under a hard budget; omitted: unchanged. */
    maxOutputTokensDefault: z
      .number()
      .int()
      .min(16, "at least 16 tokens")
      .max(1_000_000, "at most 1,000,000 tokens")
      .optional(),
    /**
     * Whole UTC months older than this many days are moved to the archive (ARCHIVE_DIR or ARCHIVE_S3_BUCKET);
     * null: the deployment's ARCHIVE_AFTER_DAYS; omitted: unchanged. Shorter than the retention, or nothing would
     * ever be archived.
     */
    archiveAfterDays: z
      .number()
      .int()
      .min(1, "at least 1 day")
      .max(3650, "at most 3650 days (10 years)")
      .nullable()
      .optional(),
  })
  .refine((v) => v.archiveAfterDays == null || v.archiveAfterDays < v.retentionDays, {
    path: ["archiveAfterDays"],
    message: "shorter than the retention: a month past retention is deleted, not archived",
  });

/** USD per 1M tokens, as the provider would list it: a positive decimal. */
const perMillion = z
  .string()
  .trim()
  .regex(USD_AMOUNT, "USD per 1M tokens, such as 3 or 0.25")
  .refine((v) => !USD_AMOUNT.test(v) || new Big(v).gt(0), "a price above 0 (a model is not free)");

/**
 * PUT /api/governance/assumed-prices: the price a tenant admin assumes for a model the price catalog does not
 * know (one of the gateway's candidates), or `price: null` to remove it. Cached input and cache writes default
 * to the input price.
 */
export const assumedPriceInput = z.object({
  provider: z.string().trim().min(1, "a provider name of the gateway config").max(200),
  model: z.string().trim().min(1, "a model of that provider").max(200),
  price: z
    .object({
      input: perMillion,
      output: perMillion,
      cachedInput: perMillion.nullable().default(null),
      cacheWrite: perMillion.nullable().default(null),
    })
    .nullable(),
});

/** A price a tenant admin assumed (USD per 1M tokens, decimal strings), and who set it when. */
export type AssumedPriceView = {
  provider: string;
  model: string;
  input: string;
  output: string;
  cachedInput: string | null;
  cacheWrite: string | null;
  updatedAt: Date;
};

/** A model the gateway may call for this tenant (a candidate of `aliases`) that has no price in the catalog. */
export type UnpricedModel = { provider: string; model: string; aliases: string[] };

/** One scope's limits with what it spent so far (USD decimal strings). */
export type LimitView = LimitValues & { spentToday: string; spentThisMonth: string };

/**
 * An end user's calls and cost today (UTC) under any key of the tenant, from the ledger: `costToday` is the
 * priced calls' sum (null when none was priced), `unpricedCalls` the calls whose cost is unknown.
 */
export type EndUserSpend = {
  endUser: string;
  calls: number;
  unpricedCalls: number;
  costToday: string | null;
};

/** Everything the limits screen shows for a tenant: its settings, and the limits and spend of each scope. */
export type GovernanceSettings = {
  retentionDays: number;
  cacheAliases: string[];
  cacheTtlSeconds: number;
  maxOutputTokensDefault: number;
  /** The tenant's archive hot window in days; null: the deployment's (`archiveDefaultDays`). */
  archiveAfterDays: number | null;
  /** The deployment's ARCHIVE_AFTER_DAYS (null: unset), and whether an archive target is configured at all. */
  archive: { defaultDays: number | null; configured: boolean };
  tenantLimits: LimitView | null;
  /** The template each end user of the tenant's API calls is held to (null: none). */
  tenantEndUserLimits: LimitValues | null;
  keys: (KeyView & { limits: LimitView | null; endUserLimits: LimitValues | null })[];
  /** The ten end users who spent most today, most first. */
  topEndUsers: EndUserSpend[];
  users: { id: string; email: string; name: string; role: string; limits: LimitView | null }[];
  /** Prices this tenant assumed for models without one. */
  assumedPrices: AssumedPriceView[];
};

/** GET/PUT /api/governance/settings: the settings, and the model aliases a cache setting may name. */
export type GovernanceSettingsAnswer = GovernanceSettings & {
  aliases: string[];
  /** The gateway's candidates the price catalog (and the config's overrides) cannot price. */
  unpricedModels: UnpricedModel[];
};

/** PUT /api/governance/limits: the values saved, null when every one was empty (the limits removed). */
export type SavedLimits = { limits: LimitValues | null };

const positiveCount = (max: number) =>
  z.number().int().min(1, "at least 1 (leave empty for no ceiling)").max(max).nullable().default(null);

/**
 * The ceilings of every run of the tenant or of one API key (PUT /api/governance/run-ceilings): USD, model calls
 * (and /mcp tool calls), tokens, and seconds of wall time from the run's first call; each may be empty (none).
 */
export const runCeilingValuesInput = z.object({
  maxUsd: z
    .string()
    .trim()
    .regex(USD_AMOUNT, "an amount in USD, such as 25 or 0.50")
    // Zod still runs this when the pattern failed: compare only an amount.
    .refine((v) => !USD_AMOUNT.test(v) || new Big(v).gt(0), "more than 0 (leave empty for no ceiling)")
    .nullable()
    .default(null),
  maxCalls: positiveCount(1_000_000_000),
  maxTokens: positiveCount(1_000_000_000_000),
  maxSeconds: positiveCount(8 * 86_400),
});
export type RunCeilingValues = z.output<typeof runCeilingValuesInput>;

export const runCeilingInput = z.intersection(
  z.object({
    scope: z.enum(["tenant", "key"]),
    subjectId: z.uuid("the id of an API key of this tenant").optional(),
  }),
  runCeilingValuesInput,
);

/** GET /api/governance/run-ceilings: the tenant's ceilings and each live key's (null: none set). */
export type RunCeilingsAnswer = {
  tenant: RunCeilingValues | null;
  keys: { id: string; name: string; prefix: string; ceilings: RunCeilingValues | null }[];
};
