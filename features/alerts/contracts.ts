// What the alerts routes take and answer, shared by the routes, the Alerts page and the OpenAPI document.
// Browser-safe: zod and plain types only.
import { z } from "@/lib/core/schema/zod";
import { alertChannelInput, emailChannelConfig, slackChannelConfig, webhookChannelConfig } from "./channels";

/** The kinds of rule (db/schema/alerts.ts ALERT_RULE_KINDS, held equal by the server's type check). */
export const RULE_KINDS = [
  "budget_threshold",
  "run_ceiling",
  "spend_anomaly",
  "failure_rate",
  "breaker_open",
  "unpriced_calls",
  "guardrail_blocks",
  "key_expiring",
] as const;
export type AlertRuleKind = (typeof RULE_KINDS)[number];

const percent = z.int("a whole percent").min(1, "at least 1 %").max(1000, "at most 1000 %");
/** Percent thresholds, each fired once (per budget and period, per run…); kept sorted and distinct. */
const thresholds = (fallback: number[]) =>
  z
    .array(percent)
    .min(1, "at least one threshold")
    .max(10, "at most 10 thresholds")
    .default(fallback)
    .transform((list) => [...new Set(list)].sort((a, b) => a - b));
const alias = z.string().trim().min(1, "an alias, or leave it out for any").max(200).optional();

/** Each kind's params (alert_rule.params); a kind takes only its own. */
export const RULE_PARAMS = {
  budget_threshold: z.strictObject({
    thresholds: thresholds([50, 80, 100]),
    /** Whose budget: the tenant's, one API key's or user's (subjectId), every key's or user's, or any budget. */
    scope: z.enum(["any", "tenant", "key", "user"]).default("any"),
    subjectId: z.uuid("an API key's or user's id").optional(),
    period: z.enum(["daily", "monthly"]).default("monthly"),
    /** Measured against the hard limit (or the soft one where no hard is set), or the soft one first. */
    limit: z.enum(["hard", "soft"]).default("hard"),
  }),
  run_ceiling: z.strictObject({ thresholds: thresholds([80, 100]) }),
  spend_anomaly: z.strictObject({
    multiple: z.number().min(1.1, "at least 1.1").max(100, "at most 100").default(3),
    /** Today's spend below this (USD) never alerts, whatever the multiple. */
    minSpendUsd: z.number().min(0, "not negative").max(1_000_000).default(1),
  }),
  failure_rate: z.strictObject({
    alias,
    percent: z.number().min(1, "at least 1 %").max(100, "at most 100 %").default(20),
    minCalls: z.int().min(1, "at least 1").max(100_000).default(20),
  }),
  breaker_open: z.strictObject({
    provider: z.string().trim().min(1, "a provider, or leave it out for any").max(200).optional(),
  }),
  unpriced_calls: z.strictObject({ threshold: z.int().min(0, "not negative").max(10_000_000).default(0) }),
  guardrail_blocks: z.strictObject({ threshold: z.int().min(0, "not negative").max(10_000_000).default(10) }),
  key_expiring: z.strictObject({
    days: z.int().min(1, "at least 1 day").max(365, "at most 365 days").default(7),
  }),
} satisfies Record<AlertRuleKind, z.ZodType>;

export type RuleParams<K extends AlertRuleKind> = z.output<(typeof RULE_PARAMS)[K]>;

/** The kinds a platform rule (the super admin's, tenant_id null) may use: they watch every tenant or the gateway. */
export const PLATFORM_RULE_KINDS = [
  "breaker_open",
  "failure_rate",
  "spend_anomaly",
  "unpriced_calls",
] as const satisfies readonly AlertRuleKind[];
export const isPlatformKind = (kind: AlertRuleKind) =>
  (PLATFORM_RULE_KINDS as readonly string[]).includes(kind);

const name = z.string().trim().min(1, "a name is required").max(80, "at most 80 characters");
const channelIds = z.array(z.uuid("a channel id")).max(20, "at most 20 channels");

/** POST /api/alerts/rules. `params` is checked against the kind (its defaults filled in). */
export const alertRuleInput = z
  .strictObject({
    name,
    kind: z.enum(RULE_KINDS),
    params: z.record(z.string(), z.unknown()).default({}),
    channelIds: channelIds.default([]),
    enabled: z.boolean().default(true),
  })
  .transform((rule, ctx) => {
    const parsed = RULE_PARAMS[rule.kind].safeParse(rule.params);
    if (!parsed.success) {
      for (const issue of parsed.error.issues)
        ctx.addIssue({ ...issue, path: ["params", ...issue.path] } as z.core.$ZodRawIssue);
      return z.NEVER;
    }
    const params = parsed.data as Record<string, unknown>;
    if (rule.kind === "budget_threshold") {
      const p = parsed.data as RuleParams<"budget_threshold">;
      if (p.subjectId && p.scope !== "key" && p.scope !== "user") {
        ctx.addIssue({ code: "custom", path: ["params", "subjectId"], message: "only for a key or a user" });
        return z.NEVER;
      }
    }
    return { ...rule, params };
  });
export type AlertRuleInput = z.output<typeof alertRuleInput>;

/** PATCH /api/alerts/rules/{id}: what is sent changes; a new `params` is checked against the rule's kind. */
export const alertRulePatch = z.strictObject({
  name: name.optional(),
  params: z.record(z.string(), z.unknown()).optional(),
  channelIds: channelIds.optional(),
  enabled: z.boolean().optional(),
});

/** POST /api/alerts/channels: a webhook, Slack or email channel (features/alerts/channels.ts). */
export { alertChannelInput };

/**
 * PATCH /api/alerts/channels/{id}: name, enabled, and the config of the channel's kind; a webhook's `secret` and
 * a Slack `url` left out keep the stored ones (they are never answered, so the page cannot send them back).
 */
export const alertChannelPatch = z.strictObject({
  name: name.optional(),
  enabled: z.boolean().optional(),
  config: z.record(z.string(), z.unknown()).optional(),
});
export const CHANNEL_CONFIGS = {
  webhook: webhookChannelConfig,
  slack: slackChannelConfig,
  email: emailChannelConfig,
} as const;

/** GET /api/alerts/deliveries. */
export const deliveriesQuery = z.strictObject({
  limit: z.coerce.number().int().min(1, "at least 1").max(200, "at most 200").default(50),
  status: z.enum(["pending", "delivered", "dead"]).optional(),
  scope: z.enum(["platform"]).optional(),
});

/** A rule as answered. */
export type AlertRuleView = {
  id: string;
  name: string;
  kind: AlertRuleKind;
  params: Record<string, unknown>;
  channelIds: string[];
  enabled: boolean;
  /** When it last fired (ISO), or null. */
  lastFiredAt: string | null;
  updatedAt: string;
};

/** A channel as answered: secrets replaced by whether they are set, the target masked. */
export type AlertChannelView = {
  id: string;
  name: string;
  kind: "webhook" | "slack" | "email";
  enabled: boolean;
  /** Where it goes, safe to show: a webhook's URL, Slack's host only, email addresses. */
  target: string;
  /** A webhook's URL and tries, an email channel's addresses; never a secret nor a Slack URL. */
  config: Record<string, unknown>;
  secretSet: boolean;
  updatedAt: string;
};

export type SendTestResult = { deliveryId: string; status: "delivered" | "pending" | "dead"; error?: string };

export type DeliveryView = {
  id: string;
  eventTitle: string;
  severity: string;
  channelName: string;
  channelKind: string;
  status: string;
  attempts: number;
  lastError: string | null;
  lastStatus: number | null;
  createdAt: string;
  deliveredAt: string | null;
  nextAttemptAt: string | null;
};
