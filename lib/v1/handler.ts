import { v7 as uuidv7 } from "uuid";
import type { Database } from "@/db";
import type { TurnSummary } from "@/lib/agent/events";
import type { TurnObserver } from "@/lib/agent/observer";
import { findApiKey, type ResolvedKey } from "@/lib/api-keys";
import { GatewayError } from "@/lib/gateway/errors";
import type { Gateway } from "@/lib/gateway/gateway";
import { type Stamp, ZERO_USAGE } from "@/lib/gateway/types";
import { log } from "@/lib/log";
import {
  type ChatCompletionRequest,
  chatCompletionRequest,
  completionBody,
  finishReason,
  openAIError,
  openAIUsage,
  toChatMessages,
  toTools,
} from "./openai-shapes";

export type V1Deps = { db: () => Promise<Database>; gateway: () => Gateway; recorder: TurnObserver };

const STATUS_BY_CLASS: Record<string, number> = {
  bad_request: 400,
  unknown_model: 404,
  rate_limited: 429,
  auth: 502,
  not_found: 502,
  no_candidate: 503,
  timeout: 504,
  aborted: 499,
};

/**
 * The OpenAI-compatible API as a plain `(Request) => Response` handler: Next mounts it under /v1, and the lean
 * server (`npm run gateway`) serves it from plain Node. Every call is a ledger row (source api) with its audit.
 */
export function createV1Handler(deps: V1Deps): (req: Request) => Promise<Response> {
  return async (req) => {
    const path = new URL(req.url).pathname.replace(/\/+$/, "");
    try {
      const key = await authenticate(req, deps);
      if (!key)
        return openAIError(
          401,
          "Incorrect API key provided. Create one under your tenant's API keys.",
          "invalid_api_key",
        );
      if (req.method === "GET" && path.endsWith("/v1/models")) return listModels(deps.gateway());
      if (req.method === "POST" && path.endsWith("/v1/chat/completions"))
        return await chatCompletions(req, key, deps);
      return openAIError(404, `Unknown endpoint: ${req.method} ${path}`, "unknown_url");
    } catch (error) {
      const requestId = uuidv7();
      log.error({ err: error, requestId }, "/v1 request failed");
      return openAIError(500, `internal error (request id ${requestId})`, "internal_error");
    }
  };
}

async function authenticate(req: Request, deps: V1Deps): Promise<ResolvedKey | null> {
  const header = req.headers.get("authorization") ?? "";
  const secret = header.match(/^Bearer\s+(.+)$/i)?.[1]?.trim();
  return secret ? findApiKey(await deps.db(), secret) : null;
}

function listModels(gateway: Gateway): Response {
  const created = Math.floor(Date.now() / 1000);
  return Response.json({
    object: "list",
    data: gateway.models().map((m) => ({ id: m.alias, object: "model", created, owned_by: m.provider })),
  });
}

async function chatCompletions(req: Request, key: ResolvedKey, deps: V1Deps): Promise<Response> {
  let body: ChatCompletionRequest;
  try {
    const parsed = chatCompletionRequest.safeParse(await req.json());
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      return openAIError(
        400,
        `${issue.path.join(".") || "body"}: ${issue.message}`,
        "invalid_request",
        issue.path.join(".") || null,
      );
    }
    body = parsed.data;
  } catch {
    return openAIError(400, "The request body must be JSON.", "invalid_json");
  }
  const gateway = deps.gateway();
  if (!gateway.config.models[body.model]) {
    return openAIError(
      404,
      `The model \`${body.model}\` does not exist. Available: ${Object.keys(gateway.config.models).join(", ")}`,
      "model_not_found",
      "model",
    );
  }
  const turnId = uuidv7();
  const startedAt = new Date();
  const started = performance.now();
  await deps.recorder.start({
    turnId,
    tenantId: key.tenantId,
    userId: key.createdBy,
    conversationId: null,
    source: "api",
    apiKeyId: key.id,
    requestedModel: body.model,
    message: body.messages
      .map((m) => `${m.role}: ${typeof m.content === "string" ? m.content : ""}`)
      .join("\n")
      .slice(0, 8000),
    toolsOffered: body.tools?.map((t) => t.function.name) ?? [],
    startedAt,
  });
  const request = {
    model: body.model,
    messages: toChatMessages(body),
    tools: toTools(body),
    toolChoice:
      typeof body.tool_choice === "object" ? { name: body.tool_choice.function.name } : body.tool_choice,
    temperature: body.temperature,
    maxTokens: body.max_completion_tokens ?? body.max_tokens,
    signal: req.signal,
  };
  const close = (
    stamp: Stamp | undefined,
    status: TurnSummary["status"],
    error?: { class: string; message: string },
  ) =>
    deps.recorder.end(
      summaryOf(turnId, body.model, stamp, status, Math.round(performance.now() - started), error),
    );

  if (!body.stream) {
    try {
      const res = await gateway.chat(request);
      for (const call of res.message.toolCalls)
        deps.recorder.event(turnId, { type: "tool_call", call, round: 1 });
      await close(res.stamp, "success");
      return Response.json(completionBody(`chatcmpl-${turnId}`, Math.floor(startedAt.getTime() / 1000), res));
    } catch (error) {
      const e = error instanceof GatewayError ? error : new GatewayError("internal", String(error));
      deps.recorder.event(turnId, { type: "error", class: e.errorClass, message: e.message });
      await close(e.stamp, e.errorClass === "aborted" ? "stopped" : "failed", {
        class: e.errorClass,
        message: e.message,
      });
      return openAIError(STATUS_BY_CLASS[e.errorClass] ?? 502, e.message, e.errorClass);
    }
  }
  return streamCompletion(turnId, startedAt, body, gateway.stream(request), deps, close);
}

function streamCompletion(
  turnId: string,
  startedAt: Date,
  body: ChatCompletionRequest,
  events: ReturnType<Gateway["stream"]>,
  deps: V1Deps,
  close: (
    stamp: Stamp | undefined,
    status: TurnSummary["status"],
    error?: { class: string; message: string },
  ) => Promise<void>,
): Response {
  const encoder = new TextEncoder();
  const id = `chatcmpl-${turnId}`;
  const created = Math.floor(startedAt.getTime() / 1000);
  const chunk = (delta: Record<string, unknown>, finish: string | null = null, model = body.model) =>
    encoder.encode(
      `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }] })}\n\n`,
    );
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      const send = (bytes: Uint8Array) => {
        try {
          controller.enqueue(bytes);
        } catch {}
      };
      send(chunk({ role: "assistant", content: "" }));
      let toolIndex = 0;
      for await (const event of events) {
        if (event.type === "text") send(chunk({ content: event.delta }));
        else if (event.type === "tool_call") {
          deps.recorder.event(turnId, { type: "tool_call", call: event.call, round: 1 });
          send(
            chunk({
              tool_calls: [
                {
                  index: toolIndex++,
                  id: event.call.id,
                  type: "function",
                  function: { name: event.call.name, arguments: JSON.stringify(event.call.args) },
                },
              ],
            }),
          );
        } else if (event.type === "done") {
          const res = event.response;
          send(chunk({}, finishReason(res.finishReason), res.stamp.servedModel ?? body.model));
          if (body.stream_options?.include_usage) {
            send(
              encoder.encode(
                `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model: res.stamp.servedModel ?? body.model, choices: [], usage: openAIUsage(res.stamp.usage) })}\n\n`,
              ),
            );
          }
          send(encoder.encode("data: [DONE]\n\n"));
          await close(res.stamp, "success");
        } else if (event.type === "error") {
          // Never a quiet end: the client gets an error event, and no [DONE].
          deps.recorder.event(turnId, {
            type: "error",
            class: event.error.class,
            message: event.error.message,
          });
          send(
            encoder.encode(
              `data: ${JSON.stringify({ error: { message: event.error.message, type: "server_error", code: event.error.class, param: null } })}\n\n`,
            ),
          );
          await close(event.stamp, event.error.class === "aborted" ? "stopped" : "failed", {
            class: event.error.class,
            message: event.error.message,
          });
        }
      }
      try {
        controller.close();
      } catch {}
    },
  });
  return new Response(stream, {
    headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" },
  });
}

function summaryOf(
  turnId: string,
  model: string,
  stamp: Stamp | undefined,
  status: TurnSummary["status"],
  latencyMs: number,
  error?: { class: string; message: string },
): TurnSummary {
  return {
    turnId,
    conversationId: "",
    status,
    requestedModel: model,
    servedProvider: stamp?.servedProvider ?? null,
    servedAdapter: stamp?.servedAdapter ?? null,
    servedModel: stamp?.servedModel ?? null,
    fallbackIndex: stamp?.fallbackIndex ?? null,
    attempts: stamp?.attempts ?? [],
    usage: stamp?.usage ?? ZERO_USAGE,
    cost: stamp?.cost ?? null,
    rounds: 1,
    toolTrace: [],
    timeToFirstTokenMs: stamp?.timeToFirstTokenMs ?? null,
    latencyMs,
    error,
  };
}
