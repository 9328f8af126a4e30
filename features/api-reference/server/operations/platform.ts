import "server-only";
import { z } from "zod";
import { AT, ID } from "../examples";
import { answer, json, type Operation, raw } from "../registry";
import { health } from "../shapes";

const TABLES = "Admin tables";
const OPS = "Operations";
const MCP = "MCP endpoint";
const SCHEMA = "app/api/schema/[key]/[[...action]]/route.ts";

const pageKey = z.object({
  key: z
    .string()
    .describe(
      "a page schema's key (schemas/*.schema.json): agent-turns, agent-audit, agent-cost, admin-changes…",
    ),
});
/** What every table read takes (features/admin-tables/server/query.ts `pageQueryFrom`); filters are `f.<field>=`. */
const pageQuery = z.object({
  sort: z.string().optional().describe("field:asc or field:desc, a sortable column's field"),
  segment: z.string().optional().describe("one of the page's segment values"),
  cursor: z.string().optional().describe("the previous page's nextCursor"),
  limit: z.string().regex(/^\d+$/).optional().describe("1 to 500; the page's size by default"),
});
const TABLE_NOTE =
  "Filters are `f.<field>=value`, each a filter the page schema declares, with its operators: `f.<field>.not=` (is not, on filters declared `not`), `f.<field>.gt=` / `.lt=` / `.gte=` / `.lte=` (number filters: a plain decimal) and `f.<field>.from=` / `.to=` (time ranges: a day or an ISO time with a zone); an unknown filter or operator, or a bad value, is a 422 naming it.";
const ROLES = "the page's own roles (its schema's `roles`): 403 for anyone else";
const readiness = z.object({
  ready: z.boolean(),
  reason: z.enum(["starting", "draining", "database unreachable"]).nullable(),
});
const row = { id: ID.turn, startedAt: AT, requestedModel: "smart", status: "success", cost: "0.0024000000" };

const tableRead = (
  action: string,
  operationId: string,
  summary: string,
  body: ReturnType<typeof answer>,
  extra: Partial<Operation> = {},
): Operation => ({
  method: "GET",
  path: `/api/schema/{key}/${action}`,
  route: SCHEMA,
  operationId,
  tag: TABLES,
  summary,
  description: TABLE_NOTE,
  guard: "user",
  access: ROLES,
  params: { path: pageKey, query: pageQuery },
  answers: { 200: body },
  errorDialect: "app",
  errors: { 404: "no such page" },
  ...extra,
});

export const platformOperations: Operation[] = [
  {
    method: "GET",
    path: "/api/schema/{key}",
    route: SCHEMA,
    operationId: "getPageSchema",
    tag: TABLES,
    summary: "A schema-driven page's schema",
    description: "Columns, filters, segments, metrics and charts, as the page renders them.",
    guard: "user",
    access: ROLES,
    params: { path: pageKey },
    answers: {
      200: answer(
        "The page schema (schemas/page.schema.json).",
        z.object({
          schema: z.looseObject({
            key: z.string(),
            roles: z.array(z.string()),
            columns: z.array(z.unknown()),
          }),
        }),
        { schema: { key: "agent-turns", roles: ["admin", "super"], columns: [] } },
      ),
    },
    errorDialect: "app",
    errors: { 404: "no such page" },
  },
  tableRead(
    "rows",
    "listPageRows",
    "A page of rows",
    answer(
      "Rows, keyset-paginated.",
      z.object({ rows: z.array(z.record(z.string(), z.unknown())), nextCursor: z.string().nullable() }),
      { rows: [row], nextCursor: "eyJ2IjoiMjAyNi0xMS0wMSJ9" },
    ),
  ),
  tableRead(
    "count",
    "countPageRows",
    "How many rows match",
    answer(
      "The count (approximate past a size).",
      z.object({ count: z.number().int(), approximate: z.boolean() }),
      {
        count: 1204,
        approximate: false,
      },
    ),
  ),
  tableRead(
    "metrics",
    "getPageMetrics",
    "The page's metric cards",
    answer(
      "Each metric's value over the rows that match.",
      z.object({ metrics: z.array(z.looseObject({ key: z.string(), value: z.unknown() })) }),
      { metrics: [{ key: "cost", value: "41.2500000000" }] },
    ),
  ),
  tableRead(
    "series",
    "getPageSeries",
    "One chart's series",
    answer(
      "The points.",
      z.object({
        points: z.array(
          z.object({
            label: z.string(),
            value: z.union([z.number(), z.string()]),
            // What a label names, where the label is only its name: an API key's id, an end user.
            key: z.string().optional(),
          }),
        ),
        granularity: z.enum(["hour", "day", "week"]).optional(),
      }),
      { points: [{ label: "2026-11-01", value: "3.10" }], granularity: "day" },
    ),
    {
      params: {
        path: pageKey,
        query: pageQuery.extend({ chart: z.string().describe("a chart key of the page") }),
      },
      errors: { 404: "no such page or chart" },
    },
  ),
  tableRead(
    "suggest",
    "suggestFilterValues",
    "A filter's values from the data",
    answer("Up to `limit` values, this tenant's only.", z.object({ values: z.array(z.string()) }), {
      values: ["support-bot", "support-eval"],
    }),
    {
      description: "For a text filter marked `suggest` (and the super admin's tenant filter).",
      params: {
        path: pageKey,
        query: z.object({
          field: z.string().describe("the filter's field"),
          q: z.string().max(200).optional(),
          limit: z.string().regex(/^\d+$/).optional().describe("1 to 50, 10 by default"),
        }),
      },
    },
  ),
  {
    method: "GET",
    path: "/api/schema/{key}/detail/{id}",
    route: SCHEMA,
    operationId: "getPageRow",
    tag: TABLES,
    summary: "One row's detail",
    guard: "user",
    access: ROLES,
    params: { path: pageKey.extend({ id: z.string().describe("the row's id field") }) },
    answers: {
      200: answer(
        "The row (and its events, where the page shows them).",
        z.object({
          row: z.record(z.string(), z.unknown()),
          events: z.array(z.record(z.string(), z.unknown())).optional(),
        }),
        { row },
      ),
    },
    errorDialect: "app",
    errors: { 404: "no such page or row" },
  },
  tableRead("export", "exportPageRows", "Every matching row as CSV", {
    ...raw("The CSV, streamed, in your language's headings.", "text/csv", "started_at,model,status,cost\n…"),
    headers: { "content-disposition": 'attachment; filename="<page>-<time>.csv"' },
  }),
  {
    method: "GET",
    path: "/api/health",
    route: "app/api/health/route.ts",
    operationId: "getHealth",
    tag: OPS,
    summary: "Health",
    description: "The database, its migrations and the governance write counters. 503 when degraded.",
    guard: "public",
    answers: {
      200: answer("Healthy.", health, {
        status: "ok",
        version: "0.1.0",
        database: { reachable: true, kind: "postgres" },
      }),
      503: answer("Degraded: the database is unreachable or its migrations are behind.", health, {
        status: "degraded",
        version: "0.1.0",
        database: { reachable: false },
      }),
    },
    errorDialect: "app",
  },
  {
    method: "GET",
    path: "/api/health/live",
    route: "app/api/health/live/route.ts",
    operationId: "getLiveness",
    tag: OPS,
    summary: "Liveness probe",
    description: "200 while the process answers at all (no database, no sign-in).",
    guard: "public",
    answers: {
      200: answer("Alive.", z.object({ live: z.literal(true), uptimeSeconds: z.number().int() }), {
        live: true,
        uptimeSeconds: 3600,
      }),
    },
    errorDialect: "app",
  },
  {
    method: "GET",
    path: "/api/health/ready",
    route: "app/api/health/ready/route.ts",
    operationId: "getReadiness",
    tag: OPS,
    summary: "Readiness probe",
    description:
      "200 when this instance should get traffic; 503 while starting, draining or without its database.",
    guard: "public",
    answers: {
      200: answer("Ready.", readiness, { ready: true, reason: null }),
      503: {
        ...answer("Not ready, and why (with Retry-After: 1).", readiness, {
          ready: false,
          reason: "draining",
        }),
        headers: { "retry-after": "1" },
      },
    },
    errorDialect: "app",
  },
  {
    method: "GET",
    path: "/metrics",
    route: "app/metrics/route.ts",
    operationId: "scrapeMetrics",
    tag: OPS,
    summary: "Prometheus metrics",
    description:
      "With METRICS_TOKEN set, only with `Authorization: Bearer <token>`; without it, open in development and off (404) in production.",
    guard: "metrics-token",
    answers: {
      200: raw(
        "The metrics, Prometheus text format.",
        "text/plain; version=0.0.4",
        '# HELP tollgate_model_calls_total Model calls by alias and outcome.\ntollgate_model_calls_total{alias="smart",status="success"} 1204\n',
      ),
    },
    errorDialect: "text",
    errors: { 401: "no or wrong token", 404: "off: no METRICS_TOKEN in production" },
  },
  {
    method: "GET",
    path: "/unavailable",
    route: "app/unavailable/route.ts",
    operationId: "getUnavailablePage",
    tag: OPS,
    summary: "The outage page",
    description:
      "Where a signed-in page sends the browser while the database is away: an HTML page that retries by itself and links back to `from` (a same-site path; anything else goes back to /). Reads nothing but the request.",
    guard: "public",
    params: { query: z.object({ from: z.string().optional() }) },
    answers: {
      503: {
        ...raw("The page, in the visitor's language, with Retry-After: 2.", "text/html; charset=utf-8"),
        headers: { "retry-after": "2" },
      },
    },
    errorDialect: "text",
  },
  {
    method: "GET",
    path: "/api/openapi.json",
    route: "app/api/openapi.json/route.ts",
    operationId: "getOpenApiDocument",
    tag: OPS,
    summary: "This document",
    description: "Public: it describes the routes, never a tenant's data. Rendered at /docs/api.",
    guard: "public",
    answers: {
      200: answer(
        "The OpenAPI 3.1 document.",
        z.looseObject({
          openapi: z.string(),
          info: z.looseObject({ title: z.string() }),
          paths: z.record(z.string(), z.unknown()),
        }),
        { openapi: "3.1.0", info: { title: "Tollgate API" }, paths: {} },
      ),
    },
    errorDialect: "app",
  },
  ...mcpEndpoint(),
];

/** /mcp: Tollgate as an MCP server (Streamable HTTP, stateless, JSON answers) for outside agents. */
function mcpEndpoint(): Operation[] {
  const base = {
    path: "/mcp",
    route: "app/mcp/route.ts",
    tag: MCP,
    guard: "api-key" as const,
    errorDialect: "json-rpc" as const,
  };
  const rpc = z.looseObject({
    jsonrpc: z.literal("2.0"),
    id: z.union([z.string(), z.number()]).optional(),
    method: z.string().describe("initialize, tools/list, tools/call, ping…"),
    params: z.record(z.string(), z.unknown()).optional(),
  });
  const refused = {
    405: "stateless: GET (a server-initiated stream) and DELETE (ending a session) have nothing to do",
  };
  return [
    {
      ...base,
      method: "POST",
      operationId: "mcpCall",
      summary: "A JSON-RPC message to the MCP server",
      description:
        "The tenant's governed tools, as the key may call them (its `allowedTools`). Every POST is answered on its own (no session), so any replica answers any request. " +
        "Each tools/call is a ledger row (source mcp) with its audit. A tool's error comes back as a result with `isError`.",
      body: json(rpc, {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "search_docs", arguments: { q: "refunds" } },
      }),
      answers: {
        200: answer(
          "The JSON-RPC answer.",
          z.looseObject({
            jsonrpc: z.literal("2.0"),
            id: z.union([z.string(), z.number()]).nullable(),
            result: z.unknown().optional(),
          }),
          {
            jsonrpc: "2.0",
            id: 1,
            result: { content: [{ type: "text", text: "Refunds take 5 working days." }] },
          },
        ),
      },
      errors: {
        403: "an Origin of another site (DNS rebinding)",
        406: "Accept must allow application/json and text/event-stream",
      },
    },
    {
      ...base,
      method: "GET",
      operationId: "mcpStream",
      summary: "Not offered: 405",
      answers: {},
      errors: refused,
    },
    {
      ...base,
      method: "DELETE",
      operationId: "mcpEndSession",
      summary: "Not offered: 405",
      answers: {},
      errors: refused,
    },
  ];
}
