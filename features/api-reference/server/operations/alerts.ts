import "server-only";
import { z } from "zod";
import {
  alertChannelInput,
  alertChannelPatch,
  alertRuleInput,
  alertRulePatch,
  deliveriesQuery,
  RULE_KINDS,
} from "@/features/alerts/contracts";
import { AT } from "../examples";
import { answer, json, noContent, type Operation } from "../registry";

const TAG = "Alerts";
const RULE = "0193a0c2-7d1e-7c3a-9f2b-4c5d6e7f8a21";
const CHANNEL = "0193a0c2-7d1e-7c3a-9f2b-4c5d6e7f8a22";
const DELIVERY = "0193a0c2-7d1e-7c3a-9f2b-4c5d6e7f8a23";

const scope = z.object({
  scope: z
    .enum(["platform"])
    .optional()
    .describe("`platform`: the super admin's platform rules and channels; left out: the active tenant's"),
});
const idPath = z.object({ id: z.uuid().describe("the rule's or channel's id") });
const OWNER =
  "The active tenant's (a tenant admin, or the super admin with a tenant chosen: 400 without one), or with " +
  "`?scope=platform` the platform's (the super admin only: 403 for anyone else).";

const ruleView = z.object({
  id: z.uuid(),
  name: z.string(),
  kind: z.enum(RULE_KINDS),
  params: z.record(z.string(), z.unknown()).describe("the kind's params, defaults filled in"),
  channelIds: z.array(z.uuid()),
  enabled: z.boolean(),
  lastFiredAt: z.string().nullable(),
  updatedAt: z.string(),
});
const channelView = z.object({
  id: z.uuid(),
  name: z.string(),
  kind: z.enum(["webhook", "slack", "email"]),
  enabled: z.boolean(),
  target: z
    .string()
    .describe("where it goes, safe to show: a webhook's URL, Slack's host only, the addresses"),
  config: z
    .record(z.string(), z.unknown())
    .describe("the config without secrets (never a secret nor a Slack URL)"),
  secretSet: z.boolean().describe("whether a signing secret or Slack URL is stored (never answered itself)"),
  updatedAt: z.string(),
});
const delivery = z.object({
  id: z.uuid(),
  eventTitle: z.string(),
  severity: z.string(),
  channelName: z.string(),
  channelKind: z.string(),
  status: z.enum(["pending", "delivered", "dead"]),
  attempts: z.number().int(),
  lastError: z.string().nullable(),
  lastStatus: z.number().int().nullable(),
  createdAt: z.string(),
  deliveredAt: z.string().nullable(),
  nextAttemptAt: z.string().nullable(),
});

const ruleExample = {
  id: RULE,
  name: "Monthly budget",
  kind: "budget_threshold" as const,
  params: { thresholds: [50, 80, 100], scope: "any", period: "monthly", limit: "hard" },
  channelIds: [CHANNEL],
  enabled: true,
  lastFiredAt: null,
  updatedAt: AT,
};
const channelExample = {
  id: CHANNEL,
  name: "Ops webhook",
  kind: "webhook" as const,
  enabled: true,
  target: "https://ops.example.com/alerts",
  config: { url: "https://ops.example.com/alerts", maxAttempts: 6 },
  secretSet: true,
  updatedAt: AT,
};
const ruleAnswer = z.object({ rule: ruleView });
const channelAnswer = z.object({ channel: channelView });
const RULES = "app/api/alerts/rules/route.ts";
const RULE_ROUTE = "app/api/alerts/rules/[id]/route.ts";
const CHANNELS = "app/api/alerts/channels/route.ts";
const CHANNEL_ROUTE = "app/api/alerts/channels/[id]/route.ts";

export const alertOperations: Operation[] = [
  {
    method: "GET",
    path: "/api/alerts/rules",
    route: RULES,
    operationId: "listAlertRules",
    tag: TAG,
    summary: "Alert rules",
    description: `${OWNER} Each with when it last fired.`,
    guard: "tenant-admin",
    params: { query: scope },
    answers: {
      200: answer("The rules, oldest first.", z.object({ rules: z.array(ruleView) }), {
        rules: [ruleExample],
      }),
    },
    errorDialect: "app",
  },
  {
    method: "POST",
    path: "/api/alerts/rules",
    route: RULES,
    operationId: "createAlertRule",
    tag: TAG,
    summary: "Create an alert rule",
    description:
      `${OWNER} \`params\` are checked against the kind (docs/guides/alerts.md lists each kind's); a platform rule ` +
      "may watch breaker_open, failure_rate, spend_anomaly and unpriced_calls.",
    guard: "tenant-admin",
    params: { query: scope },
    body: json(
      alertRuleInput,
      {
        name: "Monthly budget",
        kind: "budget_threshold",
        params: { period: "monthly" },
        channelIds: [CHANNEL],
      },
      "AlertRuleInput",
    ),
    answers: { 201: answer("The rule.", ruleAnswer, { rule: ruleExample }) },
    errorDialect: "app",
    errors: {
      422: "a field or a param is invalid, or a channel is not the same owner's (the fields name it)",
    },
  },
  {
    method: "PATCH",
    path: "/api/alerts/rules/{id}",
    route: RULE_ROUTE,
    operationId: "updateAlertRule",
    tag: TAG,
    summary: "Change an alert rule",
    description: `${OWNER} What is sent changes; another owner's rule is 404.`,
    guard: "tenant-admin",
    params: { path: idPath, query: scope },
    body: json(alertRulePatch, { enabled: false }, "AlertRulePatch"),
    answers: { 200: answer("The rule.", ruleAnswer, { rule: { ...ruleExample, enabled: false } }) },
    errorDialect: "app",
    errors: { 422: "a field or a param is invalid, or a channel is not the same owner's" },
  },
  {
    method: "DELETE",
    path: "/api/alerts/rules/{id}",
    route: RULE_ROUTE,
    operationId: "deleteAlertRule",
    tag: TAG,
    summary: "Delete an alert rule",
    description: `${OWNER} What it fired goes with it.`,
    guard: "tenant-admin",
    params: { path: idPath, query: scope },
    answers: { 204: noContent("Deleted.") },
    errorDialect: "app",
  },
  {
    method: "GET",
    path: "/api/alerts/channels",
    route: CHANNELS,
    operationId: "listAlertChannels",
    tag: TAG,
    summary: "Alert channels",
    description: `${OWNER} Secrets (a webhook's signing secret, a Slack URL) are answered as \`secretSet\` only.`,
    guard: "tenant-admin",
    params: { query: scope },
    answers: {
      200: answer("The channels.", z.object({ channels: z.array(channelView) }), {
        channels: [channelExample],
      }),
    },
    errorDialect: "app",
  },
  {
    method: "POST",
    path: "/api/alerts/channels",
    route: CHANNELS,
    operationId: "createAlertChannel",
    tag: TAG,
    summary: "Create an alert channel",
    description: `${OWNER} A webhook (JSON signed with HMAC-SHA256), a Slack incoming webhook, or email addresses.`,
    guard: "tenant-admin",
    params: { query: scope },
    body: json(
      alertChannelInput,
      {
        kind: "webhook",
        name: "Ops webhook",
        config: { url: "https://ops.example.com/alerts", secret: "whsec-0123456789abcdef" },
      },
      "AlertChannelInput",
    ),
    answers: { 201: answer("The channel.", channelAnswer, { channel: channelExample }) },
    errorDialect: "app",
  },
  {
    method: "PATCH",
    path: "/api/alerts/channels/{id}",
    route: CHANNEL_ROUTE,
    operationId: "updateAlertChannel",
    tag: TAG,
    summary: "Change an alert channel",
    description: `${OWNER} Config fields left out (the secret, the Slack URL) keep their stored values.`,
    guard: "tenant-admin",
    params: { path: idPath, query: scope },
    body: json(alertChannelPatch, { name: "Ops", config: { maxAttempts: 3 } }, "AlertChannelPatch"),
    answers: { 200: answer("The channel.", channelAnswer, { channel: channelExample }) },
    errorDialect: "app",
  },
  {
    method: "DELETE",
    path: "/api/alerts/channels/{id}",
    route: CHANNEL_ROUTE,
    operationId: "deleteAlertChannel",
    tag: TAG,
    summary: "Delete an alert channel",
    description: `${OWNER} Its deliveries go with it, and it is taken off the owner's rules.`,
    guard: "tenant-admin",
    params: { path: idPath, query: scope },
    answers: { 204: noContent("Deleted.") },
    errorDialect: "app",
  },
  {
    method: "POST",
    path: "/api/alerts/channels/{id}/test",
    route: "app/api/alerts/channels/[id]/test/route.ts",
    operationId: "testAlertChannel",
    tag: TAG,
    summary: "Send a test alert to a channel",
    description: `${OWNER} Answers the test's delivery and how it went.`,
    guard: "tenant-admin",
    params: { path: idPath, query: scope },
    answers: {
      200: answer(
        "The delivery.",
        z.object({
          deliveryId: z.uuid(),
          status: z.enum(["delivered", "pending", "dead"]),
          error: z.string().optional(),
        }),
        { deliveryId: DELIVERY, status: "delivered" },
      ),
    },
    errorDialect: "app",
    errors: { 409: "the channel is disabled" },
  },
  {
    method: "GET",
    path: "/api/alerts/deliveries",
    route: "app/api/alerts/deliveries/route.ts",
    operationId: "listAlertDeliveries",
    tag: TAG,
    summary: "Recent alert deliveries",
    description: `${OWNER} Newest first.`,
    guard: "tenant-admin",
    params: { query: deliveriesQuery },
    answers: {
      200: answer("The deliveries.", z.object({ deliveries: z.array(delivery) }), {
        deliveries: [
          {
            id: DELIVERY,
            eventTitle: "80% of the monthly budget of the tenant spent",
            severity: "warning",
            channelName: "Ops webhook",
            channelKind: "webhook",
            status: "delivered",
            attempts: 1,
            lastError: null,
            lastStatus: 200,
            createdAt: AT,
            deliveredAt: AT,
            nextAttemptAt: null,
          },
        ],
      }),
    },
    errorDialect: "app",
  },
];
