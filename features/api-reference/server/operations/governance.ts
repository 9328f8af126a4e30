import "server-only";
import { z } from "zod";
import { createKeyInput, rotateKeyInput, updateKeyInput } from "@/features/keys/contracts";
import {
  ARCHIVED_MONTHS_HEADER,
  LEDGER_EXPORT_MAX_DAYS,
  ledgerExportQuery,
} from "@/features/ledger-export/contracts";
import {
  assumedPriceInput,
  limitsInput,
  runCeilingInput,
  tenantSettingsInput,
} from "@/features/limits/contracts";
import { AT, ID, LATER } from "../examples";
import { answer, json, type Operation, raw } from "../registry";
import { isoTime, keyView, usd } from "../shapes";

const KEYS = "API keys";
const LIMITS = "Limits and settings";
const LEDGER = "Ledger";

const key = {
  id: ID.key,
  name: "support-bot",
  prefix: "tg_4f2a",
  createdAt: AT,
  lastUsedAt: AT,
  revokedAt: null,
  allowedTools: null,
  expiresAt: null,
  rotatedFrom: null,
  rotatedTo: null,
};

const limitValues = z.looseObject({
  requestsPerMinute: z.number().int().nullable(),
  tokensPerMinute: z.number().int().nullable(),
  dailySoftUsd: usd.nullable(),
  dailyHardUsd: usd.nullable(),
  monthlySoftUsd: usd.nullable(),
  monthlyHardUsd: usd.nullable(),
});
const runCeilingValues = z.looseObject({
  maxUsd: usd.nullable(),
  maxCalls: z.number().int().nullable(),
  maxTokens: z.number().int().nullable(),
  maxSeconds: z.number().int().nullable(),
});
const ceilingsExample = { maxUsd: "2", maxCalls: 50, maxTokens: null, maxSeconds: 600 };
const limitView = limitValues.extend({ spentToday: usd, spentThisMonth: usd });
const noLimits = {
  requestsPerMinute: 60,
  tokensPerMinute: null,
  dailySoftUsd: null,
  dailyHardUsd: "25",
  monthlySoftUsd: null,
  monthlyHardUsd: null,
};

const governanceSettings = z.looseObject({
  retentionDays: z.number().int(),
  cacheAliases: z.array(z.string()),
  cacheTtlSeconds: z.number().int(),
  maxOutputTokensDefault: z.number().int(),
  archiveAfterDays: z
    .number()
    .int()
    .nullable()
    .describe("the tenant's archive hot window in days; null: the deployment's"),
  archive: z
    .object({ defaultDays: z.number().int().nullable(), configured: z.boolean() })
    .describe("the deployment's ARCHIVE_AFTER_DAYS, and whether an archive target is set"),
  tenantLimits: limitView.nullable(),
  tenantEndUserLimits: limitValues
    .nullable()
    .describe("the template each end user of the tenant's API calls is held to"),
  keys: z.array(keyView.extend({ limits: limitView.nullable(), endUserLimits: limitValues.nullable() })),
  topEndUsers: z
    .array(
      z.looseObject({
        endUser: z.string(),
        calls: z.number().int(),
        unpricedCalls: z.number().int().describe("calls whose model had no price: their cost is unknown"),
        costToday: usd.nullable().describe("the priced calls' sum; null when none was priced"),
      }),
    )
    .describe("the ten end users who spent most today (UTC), from the ledger"),
  users: z.array(
    z.looseObject({
      id: z.uuid(),
      email: z.string(),
      name: z.string(),
      role: z.string(),
      limits: limitView.nullable(),
    }),
  ),
  assumedPrices: z.array(z.record(z.string(), z.unknown())),
  aliases: z.array(z.string()).describe("the model aliases a cache setting may name"),
  unpricedModels: z
    .array(z.looseObject({ provider: z.string(), model: z.string(), aliases: z.array(z.string()) }))
    .describe("the gateway's candidates that no price covers"),
});
const settingsExample = {
  retentionDays: 90,
  cacheAliases: ["fast"],
  cacheTtlSeconds: 3600,
  maxOutputTokensDefault: 4096,
  archiveAfterDays: 60,
  archive: { defaultDays: null, configured: true },
  tenantLimits: { ...noLimits, spentToday: "3.10", spentThisMonth: "41.25" },
  tenantEndUserLimits: { ...noLimits, requestsPerMinute: 20, dailyHardUsd: "2" },
  keys: [{ ...key, limits: null, endUserLimits: null }],
  topEndUsers: [{ endUser: "alice", calls: 41, unpricedCalls: 0, costToday: "1.27" }],
  users: [],
  assumedPrices: [],
  aliases: ["fast", "smart"],
  unpricedModels: [],
};

export const governanceOperations: Operation[] = [
  {
    method: "GET",
    path: "/api/keys",
    route: "app/api/keys/route.ts",
    operationId: "listKeys",
    tag: KEYS,
    summary: "The tenant's API keys",
    description: "Never their secrets; each with what its calls cost today and this month (UTC, exact).",
    guard: "tenant-admin",
    tenant: true,
    answers: {
      200: answer(
        "The keys.",
        z.object({ keys: z.array(keyView.extend({ spentToday: usd, spentThisMonth: usd })) }),
        { keys: [{ ...key, spentToday: "0.42", spentThisMonth: "12.80" }] },
      ),
    },
    errorDialect: "app",
  },
  {
    method: "POST",
    path: "/api/keys",
    route: "app/api/keys/route.ts",
    operationId: "createKey",
    tag: KEYS,
    summary: "Create an API key",
    description:
      "The answer carries the secret, shown this once (only its hash is stored). An optional expiry, " +
      "`expiresInDays` from now or an instant `expiresAt` (not both, in the future, at most about 5 years away): " +
      "from then the key answers 401 `key_expired`.",
    guard: "tenant-admin",
    tenant: true,
    body: json(
      createKeyInput,
      { name: "support-bot", allowedTools: ["search_docs"], expiresInDays: 90 },
      "CreateKeyInput",
    ),
    answers: {
      201: answer("The key and its secret.", z.object({ secret: z.string(), key: keyView }), {
        secret: "tg_4f2a…",
        key: { ...key, allowedTools: ["search_docs"], expiresAt: LATER },
      }),
    },
    errorDialect: "app",
  },
  {
    method: "PATCH",
    path: "/api/keys/{id}",
    route: "app/api/keys/[id]/route.ts",
    operationId: "updateKey",
    tag: KEYS,
    summary: "Change a key's MCP tools or expiry",
    description:
      "`allowedTools`: names, or null for every tool the tenant offers over /mcp; `expiresAt`: an instant in the " +
      "future, or null for never. Either or both; seen by the key's next call on every instance.",
    guard: "tenant-admin",
    tenant: true,
    params: { path: z.object({ id: z.uuid() }) },
    body: json(updateKeyInput, { allowedTools: null, expiresAt: null }, "UpdateKeyInput"),
    answers: { 200: answer("The key as it now is.", z.object({ key: keyView }), { key }) },
    errorDialect: "app",
  },
  {
    method: "POST",
    path: "/api/keys/{id}/rotate",
    route: "app/api/keys/[id]/rotate/route.ts",
    operationId: "rotateKey",
    tag: KEYS,
    summary: "Rotate an API key",
    description:
      "Creates the key's successor (the same MCP tools, per-key limits and guardrail scopes; its name with " +
      '"(rotated <day>)"), answered with its secret this once. The old key keeps working `overlapHours` (0-720, ' +
      "default 24; an earlier expiry it had stays) and then answers 401 `key_expired`. The two are linked " +
      "(`rotatedTo`, `rotatedFrom`). A key rotated already is 409; another tenant's key is 404.",
    guard: "tenant-admin",
    tenant: true,
    params: { path: z.object({ id: z.uuid() }) },
    body: json(rotateKeyInput, { overlapHours: 24 }, "RotateKeyInput"),
    answers: {
      201: answer(
        "The successor and its secret, and the old key as it now is.",
        z.object({ secret: z.string(), key: keyView, previous: keyView }),
        {
          secret: "tg_9c1d…",
          key: { ...key, id: ID.key2, name: "support-bot (rotated 2026-12-06)", rotatedFrom: ID.key },
          previous: { ...key, expiresAt: LATER, rotatedTo: ID.key2 },
        },
      ),
    },
    errors: { 409: "the key was rotated already (the message names its successor)" },
    errorDialect: "app",
  },
  {
    method: "DELETE",
    path: "/api/keys/{id}",
    route: "app/api/keys/[id]/route.ts",
    operationId: "revokeKey",
    tag: KEYS,
    summary: "Revoke an API key",
    description: "At once, on every instance: it answers 401 from then on. Another tenant's key is 404.",
    guard: "tenant-admin",
    tenant: true,
    params: { path: z.object({ id: z.uuid() }) },
    answers: {
      200: answer("The key, revoked.", z.object({ key: keyView }), { key: { ...key, revokedAt: AT } }),
    },
    errorDialect: "app",
  },
  {
    method: "GET",
    path: "/api/governance/settings",
    route: "app/api/governance/settings/route.ts",
    operationId: "getGovernanceSettings",
    tag: LIMITS,
    summary: "The tenant's retention, cache, limits and budgets",
    description: "With each budget's spend so far, and the gateway's aliases and unpriced models.",
    guard: "tenant-admin",
    tenant: true,
    answers: { 200: answer("The settings.", governanceSettings, settingsExample, "GovernanceSettings") },
    errorDialect: "app",
  },
  {
    method: "PUT",
    path: "/api/governance/settings",
    route: "app/api/governance/settings/route.ts",
    operationId: "saveGovernanceSettings",
    tag: LIMITS,
    summary: "Set the tenant's retention and response-cache settings",
    guard: "tenant-admin",
    tenant: true,
    body: json(
      tenantSettingsInput,
      {
        retentionDays: 90,
        cacheAliases: ["fast"],
        cacheTtlSeconds: 3600,
        maxOutputTokensDefault: 4096,
        archiveAfterDays: 60,
      },
      "TenantSettingsInput",
    ),
    answers: {
      200: answer("The settings as saved.", governanceSettings, settingsExample, "GovernanceSettings"),
    },
    errorDialect: "app",
  },
  {
    method: "PUT",
    path: "/api/governance/limits",
    route: "app/api/governance/limits/route.ts",
    operationId: "saveLimits",
    tag: LIMITS,
    summary: "Set rate limits and budgets",
    description:
      "Of the tenant (`scope: tenant`), or of one of its API keys or users (`scope: key | user` with `subjectId`); " +
      "or the template each end user is held to, of a key (`scope: end_user` with the key's `subjectId`) or of the " +
      "tenant (`scope: end_user` alone). Every value empty removes them. Soft budgets warn (a header and an audit event), hard ones refuse with 429.",
    guard: "tenant-admin",
    tenant: true,
    body: json(limitsInput, { scope: "key", subjectId: ID.key, ...noLimits }, "LimitsInput"),
    answers: {
      200: answer(
        "The values saved; null when all were empty.",
        z.object({ limits: limitValues.nullable() }),
        {
          limits: noLimits,
        },
      ),
    },
    errorDialect: "app",
    errors: { 404: "no such key or user in this tenant" },
  },
  {
    method: "GET",
    path: "/api/governance/run-ceilings",
    route: "app/api/governance/run-ceilings/route.ts",
    operationId: "getRunCeilings",
    tag: LIMITS,
    summary: "The tenant's run ceilings, and each API key's",
    description: "Null where none is set. Only keys not revoked are listed.",
    guard: "tenant-admin",
    tenant: true,
    answers: {
      200: answer(
        "The ceilings.",
        z.object({
          tenant: runCeilingValues.nullable(),
          keys: z.array(
            z.object({
              id: z.uuid(),
              name: z.string(),
              prefix: z.string(),
              ceilings: runCeilingValues.nullable(),
            }),
          ),
        }),
        {
          tenant: ceilingsExample,
          keys: [{ id: ID.key, name: "support-bot", prefix: "tg_4f2a", ceilings: null }],
        },
      ),
    },
    errorDialect: "app",
  },
  {
    method: "PUT",
    path: "/api/governance/run-ceilings",
    route: "app/api/governance/run-ceilings/route.ts",
    operationId: "saveRunCeilings",
    tag: LIMITS,
    summary: "Set run ceilings",
    description:
      "For every run of the tenant (`scope: tenant`) or of one of its API keys (`scope: key` with `subjectId`): " +
      "`maxUsd`, `maxCalls`, `maxTokens`, `maxSeconds` (wall time from the run's first call). Every value empty " +
      "removes them. A call of a run that would pass one is refused with 429 `run_budget_exceeded`.",
    guard: "tenant-admin",
    tenant: true,
    body: json(runCeilingInput, { scope: "key", subjectId: ID.key, ...ceilingsExample }, "RunCeilingInput"),
    answers: {
      200: answer(
        "The values saved; null when all were empty.",
        z.object({ ceilings: runCeilingValues.nullable() }),
        {
          ceilings: ceilingsExample,
        },
      ),
    },
    errorDialect: "app",
    errors: { 404: "no such key in this tenant" },
  },
  {
    method: "PUT",
    path: "/api/governance/assumed-prices",
    route: "app/api/governance/assumed-prices/route.ts",
    operationId: "saveAssumedPrice",
    tag: LIMITS,
    summary: "Assume a price for a model the catalog does not know",
    description:
      "So calls it serves are counted against hard budgets instead of refused (`price: null` removes it). USD per 1M tokens.",
    guard: "tenant-admin",
    tenant: true,
    body: json(
      assumedPriceInput,
      { provider: "local-vllm", model: "llama-3.3-70b", price: { input: "0.60", output: "0.80" } },
      "AssumedPriceInput",
    ),
    answers: {
      200: answer(
        "The price saved, or null when removed.",
        z.object({
          assumedPrice: z
            .looseObject({
              provider: z.string(),
              model: z.string(),
              input: usd,
              output: usd,
              cachedInput: usd.nullable(),
              cacheWrite: usd.nullable(),
              updatedAt: isoTime,
            })
            .nullable(),
        }),
        {
          assumedPrice: {
            provider: "local-vllm",
            model: "llama-3.3-70b",
            input: "0.60",
            output: "0.80",
            cachedInput: null,
            cacheWrite: null,
            updatedAt: AT,
          },
        },
      ),
    },
    errorDialect: "app",
    errors: { 404: "not a candidate of the gateway's config, or one the catalog already prices" },
  },
  {
    method: "GET",
    path: "/api/admin/ledger-export",
    route: "app/api/admin/ledger-export/route.ts",
    operationId: "exportLedger",
    tag: LEDGER,
    summary: "The tenant's ledger and audit trail of a range of days, as one gzip'd JSON Lines file",
    description: `UTC days \`from\`..\`to\`, both included, at most ${LEDGER_EXPORT_MAX_DAYS} days. Each turn (by start time) is a line \`{"kind":"turn","row":{…}}\` followed by its audit events in seq order, \`{"kind":"audit","row":{…}}\`; rows are PostgreSQL's own JSON of the ledger's columns. Streamed from the database: months moved to the ledger archive are not in it, and \`${ARCHIVED_MONTHS_HEADER}\` names those of the range (comma-separated, empty when none).`,
    guard: "tenant-admin",
    tenant: true,
    params: { query: ledgerExportQuery },
    answers: {
      200: {
        ...raw(
          "The export, gzip'd.",
          "application/gzip",
          '{"kind":"turn","row":{"id":"…","tenant_id":"…","started_at":"2026-11-01T09:00:00.123456+00:00",…}}\n{"kind":"audit","row":{"turn_id":"…","seq":1,"type":"request",…}}\n…',
        ),
        headers: {
          "content-disposition": 'attachment; filename="ledger-<slug>-<from>-<to>.jsonl.gz"',
          [ARCHIVED_MONTHS_HEADER]: "the range's archived months, e.g. 2026-01,2026-02 (not in the export)",
        },
      },
    },
    errorDialect: "app",
    errors: { 422: `not real days, \`to\` before \`from\`, or more than ${LEDGER_EXPORT_MAX_DAYS} days` },
  },
];
