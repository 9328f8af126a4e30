import "server-only";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  type CallToolRequest,
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  type Tool as McpTool,
} from "@modelcontextprotocol/sdk/types.js";
import { v7 as uuidv7 } from "uuid";
import type { Database } from "@/db";
import type { ToolRegistry } from "@/lib/agent/registry";
import { DEFAULT_AGENT_CONFIG } from "@/lib/agent/service";
import type { ToolGuardrails } from "@/lib/agent/tool-guardrails";
import { checkApiKey, keyExpiredMessage, type ResolvedKey } from "@/lib/auth/api-keys";
import { outageRefusal } from "@/lib/core/errors/dependency";
import { log } from "@/lib/core/process/log";
import { appBodyLimits, BodyRefused, parseJsonWithin, readBodyText } from "@/lib/http/limits";
import { expectedOrigin, sameOrigin } from "@/lib/http/same-origin";
import type { Pipeline } from "@/lib/pipeline/pipeline";
import type { TurnObserver } from "@/lib/turns/observer";
import { RUN_ID_HEADER, RUN_ID_RULE, validRunId } from "@/lib/turns/run-id";
import pkg from "@/package.json";
import { callTool } from "./call";
import { type McpOffer, mcpOffer } from "./offer";

export type McpServerDeps = {
  db: () => Promise<Database>;
  registry: () => ToolRegistry;
  pipeline: () => Pipeline;
  recorder: () => TurnObserver;
  /** A tool's timeout when it sets none; default: the agent loop's (30 s). */
  toolTimeoutMs?: number;
  /** The tenants' guardrails: `tool_input` rules check a call's arguments before its tool runs. */
  guardrails?: () => ToolGuardrails;
};

/** Where the structured content of a result names its ledger row, for a caller that wants to find it. */
export const TURN_ID_META = "tollgate/turnId";

/**
 * Tollgate as an MCP server (Streamable HTTP, stateless): the tenant's governed tools for outside agents, with a
 * tenant API key as `Authorization: Bearer tg_…`. Every POST is answered on its own (a fresh SDK server and
 * transport, JSON responses, no session), so any replica answers any request. GET (a stream of server-initiated
 * messages) and DELETE (ending a session) are 405: a stateless server has neither.
 */
export function createMcpHandler(deps: McpServerDeps): (req: Request) => Promise<Response> {
  return async (req) => {
    const requestId = uuidv7();
    let res: Response;
    try {
      res = await answer(req, deps, requestId);
    } catch (error) {
      const away = outageRefusal(error);
      if (away) {
        log.warn(
          { err: error, requestId, dependency: away.dependency, cause: away.cause },
          "/mcp request refused: dependency unavailable",
        );
        res = rpcError(503, ErrorCode.InternalError, away.message, { "retry-after": away.retryAfter });
      } else {
        log.error({ err: error, requestId }, "/mcp request failed");
        res = rpcError(500, ErrorCode.InternalError, `internal error (request id ${requestId})`);
      }
    }
    res.headers.set("x-request-id", requestId);
    return res;
  };
}

async function answer(req: Request, deps: McpServerDeps, requestId: string): Promise<Response> {
  // DNS rebinding (the MCP transport's rule): a browser page on another origin is refused. Clients outside a
  // browser send no Origin; the key, never a cookie, is what authorises a call.
  const origin = req.headers.get("origin");
  if (origin && !sameOrigin(origin, expectedOrigin(req.headers)))
    return rpcError(403, -32000, "Forbidden: /mcp does not take requests from other sites' pages.");
  const secret = req.headers.get("authorization")?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
  const checked = secret ? await checkApiKey(await deps.db(), secret) : null;
  if (checked?.status === "expired")
    return rpcError(
      401,
      -32000,
      `Unauthorized: ${keyExpiredMessage(checked.expiredAt)}`,
      {
        "www-authenticate": 'Bearer realm="tollgate", error="invalid_token", error_description="key_expired"',
      },
      { code: "key_expired", expiredAt: checked.expiredAt.toISOString() },
    );
  const key = checked?.status === "live" ? checked.key : null;
  if (!key)
    return rpcError(
      401,
      -32000,
      secret
        ? "Unauthorized: this API key is not valid (unknown or revoked)."
        : "Unauthorized: send a tenant API key as Authorization: Bearer tg_…",
      { "www-authenticate": `Bearer realm="tollgate"${secret ? ', error="invalid_token"' : ""}` },
    );
  // A run groups an outside agent's calls with its /v1 calls; a value that is not a run id is refused, not dropped.
  const sentRunId = req.headers.get(RUN_ID_HEADER);
  const runId = sentRunId === null ? undefined : validRunId(sentRunId);
  if (runId === null) return rpcError(400, -32000, `Bad request: ${RUN_ID_HEADER} ${RUN_ID_RULE}.`);
  if (req.method !== "POST")
    return rpcError(
      405,
      -32000,
      "Method not allowed: this MCP server is stateless (JSON responses, no session), so it only takes POST.",
      { allow: "POST" },
    );
  const limits = appBodyLimits();
  let body: unknown;
  try {
    body = parseJsonWithin(await readBodyText(req, limits.maxBytes), limits.maxDepth);
  } catch (error) {
    if (!(error instanceof BodyRefused)) throw error;
    return error.status === 413
      ? rpcError(413, -32000, `Payload too large: ${error.message}.`)
      : rpcError(400, ErrorCode.ParseError, `Parse error: ${error.message}.`);
  }
  const server = mcpServer(key, deps, { signal: req.signal, requestId, runId });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(req, { parsedBody: body });
  } finally {
    // JSON responses are whole when handleRequest answers: nothing is left to send.
    void server.close().catch(() => undefined);
  }
}

/** The SDK's low-level server for one request of one key: its tools are JSON Schemas, listed and called as the key may. */
function mcpServer(
  key: ResolvedKey,
  deps: McpServerDeps,
  http: { signal: AbortSignal; requestId: string; runId: string | undefined },
): Server {
  const server = new Server(
    { name: "tollgate", title: "Tollgate", version: pkg.version },
    {
      capabilities: { tools: {} },
      instructions:
        "The governed tools of one Tollgate tenant. Every call is recorded in the tenant's usage ledger and audit trail; a tool's error comes back as a result with isError and a JSON {\"error\"} text.",
    },
  );
  let offer: Promise<McpOffer> | null = null;
  const offerOnce = () => {
    offer ??= mcpOffer(deps.registry(), key.tenantId, key.allowedTools);
    return offer;
  };
  // The SDK answers a thrown error with its `code` and `message`: ours say what the caller did wrong, anything else
  // is logged and answered without its detail.
  const guarded =
    <A extends unknown[], R>(handler: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await handler(...args);
      } catch (error) {
        if (error instanceof RpcError) throw error;
        const away = outageRefusal(error);
        if (away) {
          log.warn(
            { err: error, requestId: http.requestId, dependency: away.dependency, cause: away.cause },
            "/mcp call refused: dependency unavailable",
          );
          throw new RpcError(ErrorCode.InternalError, away.message);
        }
        log.error({ err: error, requestId: http.requestId }, "/mcp request failed");
        throw new RpcError(ErrorCode.InternalError, `internal error (request id ${http.requestId})`);
      }
    };
  server.setRequestHandler(
    ListToolsRequestSchema,
    guarded(async () => ({
      tools: [...(await offerOnce()).offered.values()].map(
        (tool): McpTool => ({
          name: tool.name,
          description: tool.description,
          inputSchema: tool.schema.parameters as McpTool["inputSchema"],
        }),
      ),
    })),
  );
  const call = guarded(
    async (request: CallToolRequest, extra: { signal: AbortSignal }): Promise<CallToolResult> => {
      const outcome = await callTool(
        {
          pipeline: deps.pipeline(),
          recorder: deps.recorder(),
          toolTimeoutMs: deps.toolTimeoutMs ?? DEFAULT_AGENT_CONFIG.toolTimeoutMs,
          guardrails: deps.guardrails?.(),
        },
        key,
        await offerOnce(),
        { name: request.params.name, args: request.params.arguments ?? {}, runId: http.runId },
        // The caller hanging up, or cancelling the request (notifications/cancelled), stops the tool.
        AbortSignal.any([http.signal, extra.signal]),
      );
      if (outcome.kind === "refused") throw new RpcError(ErrorCode.InvalidParams, outcome.message);
      const structured = jsonObjectOf(outcome.content);
      return {
        content: [{ type: "text", text: outcome.content }],
        ...(structured ? { structuredContent: structured } : {}),
        ...(outcome.ok ? {} : { isError: true }),
        _meta: { [TURN_ID_META]: outcome.turnId },
      };
    },
  );
  server.setRequestHandler(CallToolRequestSchema, call);
  return server;
}

/**
 * A JSON-RPC error to answer with. Not the SDK's McpError: its message starts "MCP error <code>: ", which the SDK
 * sends as it is and the client's McpError prefixes again.
 */
class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** A result that is a JSON object, as MCP's structured content (arrays, text and cut results stay text only). */
function jsonObjectOf(text: string): Record<string, unknown> | null {
  if (!text.startsWith("{")) return null;
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** An HTTP-level refusal as MCP's transport answers one: a JSON-RPC error with no id. */
function rpcError(
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
  data?: Record<string, unknown>,
) {
  return Response.json(
    { jsonrpc: "2.0", error: { code, message, ...(data ? { data } : {}) }, id: null },
    { status, headers: { ...headers } },
  );
}
