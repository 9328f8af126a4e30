import "server-only";
import { z } from "zod";
import { ERROR_STATUS, type ErrorCode } from "@/lib/core/errors/app-error";
import pkg from "@/package.json";
import { operations } from "./operations";
import type { Answer, Content, ErrorDialect, Guard, Operation } from "./registry";
import { anthropicError, appError, jsonRpcError, openAIError } from "./shapes";

type JsonSchema = Record<string, unknown>;
// Request and answer schemas alike are read as input: an answer's z.object must not claim
// `additionalProperties: false` (zod's output reading), since a route may add a field.
type Io = "input";
export type OpenApiDocument = {
  openapi: string;
  info: Record<string, unknown>;
  servers: { url: string; description?: string }[];
  tags: { name: string; description: string }[];
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: Record<string, Record<string, unknown>>;
};
export type OpenApiOperation = {
  operationId: string;
  tags: string[];
  summary: string;
  description: string;
  security: Record<string, string[]>[];
  parameters?: Record<string, unknown>[];
  requestBody?: Record<string, unknown>;
  responses: Record<string, Record<string, unknown>>;
  "x-tollgate-guard": Guard;
  "x-tollgate-route": string;
};

const TAGS: Record<string, string> = {
  "Session and account": "Signing in, the session, your account; invitation links (public).",
  Drawer: "The agent drawer: conversations, files, turns streamed as server-sent events, Stop and approvals.",
  Prompts: "The prompt store: immutable versions, labels as pointers, the playground and version stats.",
  Skills:
    "Skills: named instructions the assistant loads only when a task needs them (Agent Skills), kept in the prompt store.",
  Evaluations: "Datasets, runs across models and prompt versions, and the CI gate's API-key endpoints.",
  "API keys": "A tenant's API keys for /v1 and /mcp.",
  "Limits and settings": "Rate limits, budgets, assumed prices, retention and the response cache.",
  Guardrails:
    "A tenant's ordered rules that check, redact or block what goes to a model, to a tool and back.",
  "Saved views":
    "Saved views of the schema pages (the ledger, the audit trail, runs…): filters, sort and columns per person, shared with the tenant by its admins (docs/guides/admin-pages.md).",
  Scores:
    "Scores on ledger turns and runs: people's feedback (thumbs), applications' and evaluators' scores, validated by the tenant's score configs (docs/guides/scores.md).",
  "Review queues":
    "Queues of turns to review, filled by rules (thumbs down, failed, guardrail hits, low scores, samples); reviewers claim items under a lease, score them and add them to datasets (docs/guides/reviews.md).",
  Alerts:
    "Rules that watch budgets, spend, failures and the gateway, the channels they are sent to, and the deliveries.",
  Ledger: "The tenant's usage ledger and audit trail as one file (the months still in the database).",
  "Members and tenants":
    "A tenant's members and invitations, its sign-in and web_fetch settings; tenants (super admin).",
  "MCP servers": "MCP servers a tenant registers, whose tools the agent may call.",
  "Model API (/v1)":
    "The OpenAI- and Anthropic-compatible API for a tenant's applications, with a tenant API key.",
  "MCP endpoint":
    "Tollgate as an MCP server: the tenant's governed tools for outside agents, with a tenant API key.",
  "Admin tables":
    "The data behind the schema-driven admin pages (ledger, audit, cost…), guarded by each page's roles.",
  Operations: "Health and readiness probes, Prometheus metrics, and this document.",
};

const GUARD_TEXT: Record<Guard, string> = {
  public: "none (public)",
  user: "a signed-in user (session cookie)",
  "tenant-admin": "an admin of the active tenant, or the platform super admin (session cookie)",
  "super-admin": "the platform super admin (session cookie)",
  "api-key": "a tenant API key",
  "metrics-token": "`Authorization: Bearer <METRICS_TOKEN>` when METRICS_TOKEN is set",
};

const SECURITY: Record<Guard, Record<string, string[]>[]> = {
  public: [],
  user: [{ session: [] }],
  "tenant-admin": [{ session: [] }],
  "super-admin": [{ session: [] }],
  "api-key": [{ apiKey: [] }, { anthropicApiKey: [] }],
  "metrics-token": [{ metricsToken: [] }, {}],
};

/** Why an error status happens when the operation does not say: the guard's, the body's, the path's. */
const DEFAULT_REASON: Record<number, string> = {
  400: "the body is not JSON or nests too deep",
  401: "not signed in (no session, or it was signed out or revoked)",
  403: "signed in, but not allowed",
  404: "not found (another tenant's id answers the same)",
  413: "the body is over the size limit",
  415: "the body is not JSON (Content-Type: application/json)",
  422: "the body or query does not fit the schema: `fields` names each problem",
};

const DIALECT_SCHEMA: Record<Exclude<ErrorDialect, "text">, { name: string; schema: z.ZodType }> = {
  app: { name: "AppError", schema: appError },
  openai: { name: "OpenAIError", schema: openAIError },
  anthropic: { name: "AnthropicError", schema: anthropicError },
  "json-rpc": { name: "JsonRpcError", schema: jsonRpcError },
};

const CODE_OF_STATUS = new Map<number, ErrorCode>(
  (Object.entries(ERROR_STATUS) as [ErrorCode, number][]).map(([code, status]) => [status, code]),
);

const WORDY_FORMATS = new Set(["uuid", "date-time", "email"]);

/** A zod schema as OpenAPI 3.1's JSON Schema (2020-12); dates, which JSON cannot hold, as ISO strings. */
export function toJsonSchema(schema: z.ZodType, io: Io = "input"): JsonSchema {
  const out = z.toJSONSchema(schema, {
    target: "draft-2020-12",
    io,
    unrepresentable: "any",
    override: ({ zodSchema, jsonSchema }) => {
      if (zodSchema._zod.def.type === "date")
        Object.assign(jsonSchema, { type: "string", format: "date-time" });
      // zod writes out its own regex for these formats; the format says the same in a word.
      if (typeof jsonSchema.format === "string" && WORDY_FORMATS.has(jsonSchema.format))
        delete jsonSchema.pattern;
    },
  }) as JsonSchema;
  delete out.$schema;
  return out;
}

/** Builds the OpenAPI 3.1 document from the operations (each call anew: the operations are the truth). */
export function buildDocument(ops: readonly Operation[] = operations): OpenApiDocument {
  const schemas: Record<string, JsonSchema> = {};
  const named = new Map<string, z.ZodType>();
  const ref = (name: string, schema: z.ZodType, io: Io): JsonSchema => {
    const seen = named.get(name);
    if (seen && seen !== schema) throw new Error(`two different schemas are named ${name}`);
    if (!seen) {
      named.set(name, schema);
      schemas[name] = toJsonSchema(schema, io);
    }
    return { $ref: `#/components/schemas/${name}` };
  };
  for (const { name, schema } of Object.values(DIALECT_SCHEMA)) ref(name, schema, "input");

  const media = (content: Content, io: Io) => ({
    [content.contentType]: {
      ...(content.schema
        ? { schema: content.name ? ref(content.name, content.schema, io) : toJsonSchema(content.schema, io) }
        : content.contentType.startsWith("text/") || content.contentType.includes("octet-stream")
          ? { schema: { type: "string" } }
          : {}),
      ...(content.example !== undefined ? { example: content.example } : {}),
    },
  });

  const paths: OpenApiDocument["paths"] = {};
  for (const op of ops) {
    const method = op.method.toLowerCase();
    paths[op.path] ??= {};
    const entry = paths[op.path]!;
    if (entry[method]) throw new Error(`${op.method} ${op.path} is described twice`);
    const responses: Record<string, Record<string, unknown>> = {};
    for (const [status, answer] of Object.entries(op.answers)) responses[status] = response(answer, media);
    for (const [status, reason] of Object.entries(errorsOf(op)))
      responses[status] = errorResponse(op.errorDialect, Number(status), reason, ref);
    if (!Object.keys(responses).length) throw new Error(`${op.method} ${op.path} has no answer`);
    entry[method] = {
      operationId: op.operationId,
      tags: [op.tag],
      summary: op.summary,
      description: descriptionOf(op),
      security: op.errorDialect === "json-rpc" ? [{ apiKey: [] }] : SECURITY[op.guard],
      ...(parameters(op).length ? { parameters: parameters(op) } : {}),
      ...(op.body ? { requestBody: { required: true, content: media(op.body, "input") } } : {}),
      responses,
      "x-tollgate-guard": op.guard,
      "x-tollgate-route": op.handledIn ?? op.route,
    };
  }

  const usedTags = new Set(ops.map((op) => op.tag));
  for (const tag of usedTags) if (!TAGS[tag]) throw new Error(`tag "${tag}" has no description`);
  return {
    openapi: "3.1.0",
    info: {
      title: "Tollgate API",
      version: pkg.version,
      summary: "Multi-tenant governance for AI agents: one gateway, a usage ledger, an audit trail.",
      description: INFO,
    },
    servers: [{ url: "/", description: "this Tollgate (the document's own origin)" }],
    tags: Object.entries(TAGS)
      .filter(([name]) => usedTags.has(name))
      .map(([name, description]) => ({ name, description })),
    paths,
    components: {
      schemas,
      headers: {
        RequestId: {
          description:
            "This request's id (a UUIDv7, Tollgate's own: a client's x-request-id is only logged beside it).",
          schema: { type: "string" },
        },
      },
      securitySchemes: {
        session: {
          type: "apiKey",
          in: "cookie",
          name: "authjs.session-token",
          description:
            "The session cookie POST /api/login sets (`__Secure-authjs.session-token` over HTTPS). State-changing requests must also come from this site (Origin) and send JSON.",
        },
        apiKey: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "tg_…",
          description: "A tenant API key (the API keys admin page): `Authorization: Bearer tg_…`.",
        },
        anthropicApiKey: {
          type: "apiKey",
          in: "header",
          name: "x-api-key",
          description: "The same key as Anthropic's clients send it (/v1 only).",
        },
        metricsToken: { type: "http", scheme: "bearer", description: "METRICS_TOKEN, for /metrics." },
      },
    },
  };
}

let built: OpenApiDocument | undefined;
/** The document, built once per process (it depends on the code only, never on the deployment). */
export function openApiDocument(): OpenApiDocument {
  built ??= buildDocument();
  return built;
}

function response(answer: Answer, media: (c: Content, io: Io) => Record<string, unknown>) {
  return {
    description: answer.description,
    headers: {
      "x-request-id": { $ref: "#/components/headers/RequestId" },
      ...Object.fromEntries(
        Object.entries(answer.headers ?? {}).map(([name, description]) => [
          name,
          { description, schema: { type: "string" } },
        ]),
      ),
    },
    ...(answer.content ? { content: media(answer.content, "input") } : {}),
  };
}

/** The error statuses an operation answers: its guard's, its body's and path's, then its own. */
export function errorsOf(op: Operation): Record<number, string> {
  const errors: Record<number, string> = {};
  const add = (status: number, reason = DEFAULT_REASON[status] ?? "") => {
    errors[status] = reason;
  };
  if (op.guard === "user") add(401);
  if (op.guard === "api-key")
    add(401, "no API key, or an unknown or revoked one; or a key past its expiry (code `key_expired`)");
  if (op.guard === "tenant-admin") {
    add(401);
    add(403, "not an admin of the active tenant");
  }
  if (op.guard === "super-admin") {
    add(401);
    add(403, "not the platform super admin");
  }
  if (op.access) add(403, op.access);
  if (op.tenant) add(400, "no active tenant (choose one with POST /api/session/tenant)");
  if (op.body?.contentType === "application/json" && op.errorDialect !== "json-rpc") {
    add(400, [errors[400], DEFAULT_REASON[400]].filter(Boolean).join("; "));
    add(413);
    if (op.errorDialect === "app") {
      add(415);
      add(422);
    }
  }
  if (op.body?.contentType === "multipart/form-data") {
    add(400, "no file in the field `file`, or the upload was cut short");
    add(413, "the file is over its type's limit");
    add(415, "the body is not multipart/form-data");
  }
  if (op.params?.query && op.errorDialect === "app" && op.route.startsWith("app/api/")) add(422);
  if (
    op.params?.path &&
    op.errorDialect === "app" &&
    op.route.startsWith("app/api/") &&
    op.guard !== "public"
  )
    add(404);
  for (const [status, reason] of Object.entries(op.errors ?? {})) add(Number(status), reason);
  return errors;
}

function errorResponse(
  dialect: ErrorDialect,
  status: number,
  reason: string,
  ref: (name: string, schema: z.ZodType, io: Io) => JsonSchema,
) {
  const description = reason.charAt(0).toUpperCase() + reason.slice(1);
  if (dialect === "text")
    return {
      description,
      content: { "text/plain": { schema: { type: "string" }, example: `${description}.\n` } },
    };
  const { name, schema } = DIALECT_SCHEMA[dialect];
  return {
    description,
    headers: { "x-request-id": { $ref: "#/components/headers/RequestId" } },
    content: {
      "application/json": {
        schema: ref(name, schema, "input"),
        example: errorExample(dialect, status, description),
      },
    },
  };
}

/** What an error answer looks like in each dialect (parsed with the dialect's schema by the test). */
export function errorExample(
  dialect: Exclude<ErrorDialect, "text">,
  status: number,
  message: string,
): unknown {
  switch (dialect) {
    case "app":
      return {
        error: {
          code: CODE_OF_STATUS.get(status) ?? "internal",
          message,
          ...(status === 422 ? { fields: { name: ["enter a name"] } } : {}),
          requestId: "0193a0c2-7d1e-7c3a-9f2b-4c5d6e7f8aff",
        },
      };
    case "openai":
      return {
        error: {
          message,
          type:
            status === 429 ? "rate_limit_error" : status >= 500 ? "server_error" : "invalid_request_error",
          param: null,
          code: status === 401 ? "invalid_api_key" : null,
        },
      };
    case "anthropic":
      return {
        type: "error",
        error: {
          type:
            status === 401
              ? "authentication_error"
              : status === 429
                ? "rate_limit_error"
                : status >= 500
                  ? "api_error"
                  : "invalid_request_error",
          message,
        },
      };
    case "json-rpc":
      return { jsonrpc: "2.0", error: { code: -32000, message }, id: null };
  }
}

function parameters(op: Operation): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const where of ["path", "query", "headers"] as const) {
    const group = op.params?.[where];
    if (!group) continue;
    const schema = toJsonSchema(group, "input");
    const required = new Set((schema.required as string[] | undefined) ?? []);
    for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>)) {
      const { description, ...rest } = property;
      out.push({
        name,
        in: where === "headers" ? "header" : where,
        required: where === "path" || required.has(name),
        ...(description ? { description } : {}),
        schema: rest,
      });
    }
  }
  return out;
}

function descriptionOf(op: Operation): string {
  const lines = [op.description ?? op.summary];
  lines.push(`**Guard:** ${GUARD_TEXT[op.guard]}${op.access ? `; ${op.access}` : ""}.`);
  if (op.tenant) lines.push("**Tenant:** acts in the active tenant (400 without one).");
  return lines.join("\n\n");
}

const INFO = `Every HTTP endpoint Tollgate serves, generated from the zod schemas its routes validate with (features/*/contracts.ts).

**Guards.** The app's own routes (/api) are for the browser: a session cookie from POST /api/login, and, for every state-changing request, this site's Origin and a JSON body (403 / 415 otherwise). Each operation says which guard it has: a signed-in user, an admin of the active tenant, or the platform super admin. /v1 and /mcp take a tenant API key instead (\`Authorization: Bearer tg_…\`; /v1 also \`x-api-key\`), never a cookie.

**Errors.** /api answers \`{error: {code, message, fields?, requestId}}\`: the code fixes the status (bad_request 400, unauthorized 401, forbidden 403, not_found 404, conflict 409, gone 410, payload_too_large 413, unsupported_media_type 415, validation_failed 422, rate_limited 429, internal 500, unavailable 503); 422 names each field. /v1 answers in the dialect its clients read: OpenAI's \`{error: {message, type, param, code}}\`, Anthropic's \`{type: "error", error: {type, message}}\` on /v1/messages. /mcp answers JSON-RPC errors. Every answer carries \`x-request-id\`.`;
