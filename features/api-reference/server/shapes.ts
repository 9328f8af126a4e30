import "server-only";
import { z } from "zod";
import { ERROR_STATUS } from "@/lib/core/errors/app-error";

// What the routes answer, as zod for the document. The routes' own answer types live in their features'
// contracts.ts (TypeScript only); these describe the fields a client relies on and let the rest through
// (`looseObject`), so an added field never makes the document wrong. Dates are ISO strings on the wire.

export const isoTime = z.iso
  .datetime({ offset: true })
  .describe("an ISO 8601 time, e.g. 2026-11-01T09:30:00.000Z");
export const uuid = z.uuid();
/** Money is exact: a decimal string in USD, never a float. */
export const usd = z
  .string()
  .regex(/^-?\d+(\.\d+)?$/)
  .describe("an exact amount in USD, as a decimal string");

const ERROR_CODES = Object.keys(ERROR_STATUS) as [
  keyof typeof ERROR_STATUS,
  ...(keyof typeof ERROR_STATUS)[],
];

/** The app's one error envelope (lib/core/errors/app-error.ts `ErrorBody`): every /api route and /v1/evals. */
export const appError = z.object({
  error: z.object({
    code: z.enum(ERROR_CODES).describe("fixes the status: see the table in docs/api.md"),
    message: z.string().describe("safe to show to the user"),
    fields: z
      .record(z.string(), z.array(z.string()))
      .optional()
      .describe("422 (and some 409s): the messages for each field, by its path (`items.0.input`)"),
    reason: z
      .string()
      .optional()
      .describe("some 409s: a finer code, such as review_lease_lost or review_item_done"),
    requestId: z.string().describe("the x-request-id of the answer, to quote to an operator"),
  }),
});

/** OpenAI's error body (every OpenAI client reads it): /v1 but /v1/messages. */
export const openAIError = z.object({
  error: z.object({
    message: z.string(),
    type: z.string().describe("invalid_request_error, rate_limit_error, insufficient_quota, server_error…"),
    param: z.string().nullable(),
    code: z.string().nullable().describe("e.g. invalid_api_key, model_not_found, budget_exceeded"),
  }),
});

/** Anthropic's error body: /v1/messages and /v1/messages/count_tokens. */
export const anthropicError = z.object({
  type: z.literal("error"),
  error: z.object({
    type: z
      .string()
      .describe("invalid_request_error, authentication_error, not_found_error, rate_limit_error, api_error…"),
    message: z.string(),
  }),
});

/** A JSON-RPC error (/mcp), as the MCP transport answers it outside a session. */
export const jsonRpcError = z.object({
  jsonrpc: z.literal("2.0"),
  error: z.object({ code: z.number().int(), message: z.string() }),
  id: z.null(),
});

export const tenantAccess = z.looseObject({
  id: uuid,
  name: z.string(),
  slug: z.string(),
  role: z.enum(["member", "admin"]),
  promptEditor: z.boolean(),
  reviewer: z.boolean(),
});

export const userContext = z.object({
  user: z.looseObject({
    id: uuid,
    email: z.string(),
    name: z.string(),
    isSuperAdmin: z.boolean(),
    sessionEpoch: z.number().int(),
  }),
  tenants: z.array(tenantAccess),
  tenant: tenantAccess.nullable(),
  role: z.enum(["member", "admin"]).nullable(),
});

export const keyView = z.looseObject({
  id: uuid,
  name: z.string(),
  prefix: z.string(),
  createdAt: isoTime,
  lastUsedAt: isoTime.nullable(),
  revokedAt: isoTime.nullable(),
  allowedTools: z.array(z.string()).nullable(),
  expiresAt: isoTime.nullable().describe("from when the key answers 401 key_expired; null: never"),
  rotatedFrom: uuid.nullable().describe("the key this one replaced by a rotation"),
  rotatedTo: uuid.nullable().describe("the key that replaced this one by a rotation"),
});

export const memberView = z.looseObject({
  userId: uuid,
  email: z.string(),
  name: z.string(),
  role: z.enum(["member", "admin"]),
  promptEditor: z.boolean(),
  reviewer: z.boolean(),
  joinedAt: isoTime,
});

export const invitationView = z.looseObject({
  id: uuid,
  email: z.string(),
  role: z.enum(["member", "admin"]),
  createdAt: isoTime,
  expiresAt: isoTime,
  invitedBy: z.string(),
});

export const tenantSummary = z.looseObject({
  id: uuid,
  name: z.string(),
  slug: z.string(),
  disabled: z.boolean(),
  createdAt: isoTime,
  members: z.number().int(),
  lastActivityAt: isoTime.nullable(),
  spendThisMonth: usd,
});

export const conversationSummary = z.looseObject({
  id: uuid,
  title: z.string().nullable(),
  model: z.string().nullable(),
  createdAt: isoTime,
  updatedAt: isoTime,
});

export const conversationMessage = z.looseObject({
  id: uuid,
  role: z.enum(["system", "user", "assistant", "tool"]),
  content: z.unknown().describe("the message's text, or its parts"),
  turnId: uuid.nullable(),
  createdAt: isoTime,
  data: z
    .record(z.string(), z.unknown())
    .optional()
    .describe("what the message shows: context chips, attachments, cards"),
});

export const ledgerTurn = z.looseObject({
  id: uuid,
  tenantId: uuid,
  userId: uuid.nullable(),
  conversationId: uuid.nullable(),
  source: z.string().describe("drawer, api, mcp, eval, playground…"),
  apiKeyId: uuid.nullable(),
  requestedModel: z.string(),
  servedProvider: z.string().nullable(),
  servedModel: z.string().nullable(),
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  cost: usd.nullable().describe("null when the served model had no price (costStatus unpriced)"),
  costStatus: z.enum(["priced", "unpriced", "assumed"]),
  status: z.string().describe("running, success, failed, stopped, limit, interrupted"),
  startedAt: isoTime,
  latencyMs: z.number().int().nullable(),
});

export const modelInfo = z.looseObject({
  alias: z.string(),
  label: z.string(),
  provider: z.string(),
  providerType: z.string(),
  supportsTools: z.boolean(),
  supportsVision: z.boolean(),
  offline: z.boolean(),
  isDefault: z.boolean(),
});

export const mcpServerStatus = z.looseObject({
  reachable: z.boolean().nullable(),
  toolCount: z.number().int(),
  lastError: z.string().nullable(),
  latencyMs: z.number().int().nullable(),
  checkedAt: isoTime.nullable(),
  connectedTransport: z.enum(["streamable", "sse"]).nullable(),
});

export const mcpServerView = z.looseObject({
  id: uuid,
  name: z.string(),
  url: z.string(),
  transport: z.enum(["auto", "streamable", "sse"]),
  headerNames: z.array(z.string()),
  timeoutMs: z.number().int(),
  createdAt: isoTime,
  status: mcpServerStatus,
});

export const mcpToolView = z.looseObject({
  name: z.string(),
  exposedName: z.string(),
  description: z.string().optional(),
  inputSchema: z.record(z.string(), z.unknown()),
  enabled: z.boolean(),
  roles: z.array(z.enum(["member", "admin"])).nullable(),
  requiresConfirmation: z.boolean(),
  addedLater: z.boolean(),
});

export const mcpServerDetail = mcpServerView.extend({
  toolsListedAt: isoTime.nullable(),
  tools: z.array(mcpToolView),
});

export const promptSummary = z.looseObject({
  name: z.string(),
  type: z.enum(["chat", "text"]),
  latestVersion: z.number().int(),
  labels: z.record(z.string(), z.number().int()).describe("label → version"),
  updatedAt: isoTime,
});

export const promptVersion = z.looseObject({
  name: z.string(),
  version: z.number().int(),
  type: z.enum(["chat", "text"]),
  messages: z.array(z.object({ role: z.string(), content: z.string() })).nullable(),
  text: z.string().nullable(),
  config: z.record(z.string(), z.unknown()),
  variables: z.array(z.string()),
  message: z.string().nullable(),
  createdBy: z.string(),
  createdAt: isoTime,
  archived: z.boolean(),
  labels: z.array(z.string()),
});

export const promptRights = z.object({ edit: z.boolean(), admin: z.boolean() });

export const datasetSummary = z.looseObject({
  id: uuid,
  name: z.string(),
  description: z.string().nullable(),
  items: z.number().int(),
  scorers: z.array(z.record(z.string(), z.unknown())),
  createdAt: isoTime,
  updatedAt: isoTime,
  archived: z.boolean(),
});

export const runProgress = z.object({
  done: z.number().int(),
  total: z.number().int(),
  passed: z.number().int(),
  cost: usd,
  etaSeconds: z.number().nullable(),
});

export const runStatus = z.enum(["queued", "running", "done", "cancelled", "failed", "budget"]);

export const runView = z.looseObject({
  id: uuid,
  name: z.string().nullable(),
  datasetId: uuid,
  datasetName: z.string(),
  status: runStatus,
  progress: runProgress,
  targets: z
    .array(z.record(z.string(), z.unknown()))
    .describe("each target's summary: pass rate, cost, p50/p95"),
  concurrency: z.number().int(),
  createdAt: isoTime,
  items: z
    .array(z.record(z.string(), z.unknown()))
    .describe("every item's result per target (left out with ?items=0)"),
});

export const webFetchSettings = z.object({
  mode: z.enum(["off", "allowlist", "any"]),
  domains: z.array(z.string()),
});

export const codeRunSettings = z.object({
  mode: z
    .enum(["off", "on", "files"])
    .describe("off: not offered; on: no files; files: the conversation's files, read-only"),
});

export const signInSettings = z.object({
  ssoDomains: z.array(z.string()),
  sso: z.string().nullable().describe("the single sign-on provider's name; null: none configured"),
  canEdit: z.boolean(),
});

export const health = z.looseObject({
  status: z.enum(["ok", "degraded"]),
  version: z.string(),
  database: z.looseObject({ reachable: z.boolean(), kind: z.string().optional() }),
});

/** `{ changed: true }`-style acknowledgements. */
export const flag = <K extends string>(key: K) =>
  z.object({ [key]: z.literal(true) } as Record<K, z.ZodLiteral<true>>);
