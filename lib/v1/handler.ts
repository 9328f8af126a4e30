import "server-only";
import { v7 as uuidv7 } from "uuid";
import type { Database } from "@/db";
import { log } from "@/lib/core/log";
import type { Gateway } from "@/lib/gateway/gateway";
import { type Attempt, type Stamp, ZERO_USAGE } from "@/lib/gateway/types";
import { apiBodyLimits, BodyRefused, jsonDepthExceeds, readJsonWithin, tooDeep } from "@/lib/http/limits";
import { findApiKey, type ResolvedKey } from "@/lib/keys/api-keys";
import type { Pipeline } from "@/lib/pipeline/pipeline";
import type { PipelineEvent } from "@/lib/pipeline/types";
import type { ApiTurnSummary, TurnError, TurnStatus } from "@/lib/turns/events";
import type { TurnObserver } from "@/lib/turns/observer";
import {
  type ChatCompletionRequest,
  callErrorResponse,
  chatCompletionRequest,
  completionBody,
  finishReason,
  openAIError,
  openAIUsage,
  toChatMessages,
  toTools,
} from "./openai-shapes";

export type V1Deps = {
  db: () => Promise<Database>;
  gateway: () => Gateway;
  pipeline: Pipeline;
  recorder: TurnObserver;
};

/**
 * The OpenAI-compatible API as a plain `(Request) => Response` handler: Next mounts it under /v1, and the lean
 * server (`npm run gateway`) serves it from plain Node. Every call is a ledger row (source api) with its audit.
 */
export function createV1Handler(deps: V1Deps): (req: Request) => Promise<Response> {
  return async (req) => {
    const path = new URL(req.url).pathname.replace(/\/+$/, "");
    // Always our own id (a call's ledger row id): a client's x-request-id is only logged beside it.
    const requestId = uuidv7();
    let res: Response;
    try {
      res = await answer(req, path, requestId, deps);
    } catch (error) {
      const clientRequestId = req.headers.get("x-request-id")?.slice(0, 200) || undefined;
      log.error({ err: error, requestId, clientRequestId }, "/v1 request failed");
      res = openAIError(500, `internal error (request id ${requestId})`, "internal_error");
    }
    res.headers.set("x-request-id", requestId);
    return res;
  };
}

async function answer(req: Request, path: string, requestId: string, deps: V1Deps): Promise<Response> {
  const key = await authenticate(req, deps);
  if (!key)
    return openAIError(
      401,
      "Incorrect API key provided. Create one under your tenant's API keys.",
      "invalid_api_key",
    );
  if (req.method === "GET" && path.endsWith("/v1/models")) return listModels(deps.gateway());
  if (req.method === "POST" && path.endsWith("/v1/chat/completions"))
    return await chatCompletions(req, requestId, key, deps);
  return openAIError(404, `Unknown endpoint: ${req.method} ${path}`, "unknown_url");
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

async function chatCompletions(
  req: Request,
  turnId: string,
  key: ResolvedKey,
  deps: V1Deps,
): Promise<Response> {
  const limits = apiBodyLimits();
  let body: ChatCompletionRequest;
  try {
    // Size and depth are checked before anything parses or walks the body (never sent upstream past them).
    const parsed = chatCompletionRequest.safeParse(await readJsonWithin(req, limits));
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
    checkArgumentsDepth(body, limits.maxDepth);
  } catch (error) {
    if (!(error instanceof BodyRefused)) throw error;
    return openAIError(error.status, sentence(error.message), BODY_ERROR_CODE[error.reason], error.param);
  }
  const gateway = deps.gateway();
  if (!gateway.hasModel(body.model)) {
    return openAIError(
      404,
      `The model \`${body.model}\` does not exist. Available: ${gateway.modelAliases().join(", ")}`,
      "model_not_found",
      "model",
    );
  }
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
  let closed = false;
  const close = async (stamp: Stamp | undefined, status: TurnStatus, error?: TurnError) => {
    if (closed) return;
    closed = true;
    await deps.recorder.end(
      summaryOf(turnId, body.model, stamp, status, Math.round(performance.now() - started), error),
    );
  };
  const events = deps.pipeline.run(
    { tenantId: key.tenantId, userId: key.createdBy, apiKeyId: key.id, source: "api" },
    request,
    {
      stream: body.stream ?? false,
      noCache: /no-cache|no-store/i.test(req.headers.get("cache-control") ?? ""),
    },
  );
  // Up to the first event of the answer: guardrail warnings go to headers and the audit; a refusal or an error
  // before anything was streamed is an HTTP error, as OpenAI's own API answers it.
  const headers = new Headers({ "x-request-id": turnId });
  let first: IteratorResult<PipelineEvent>;
  for (;;) {
    first = await events.next();
    if (first.done || first.value.type !== "guardrail") break;
    const g = first.value;
    deps.recorder.event(turnId, { type: "guardrail", code: g.code, message: g.message });
    if (!g.blocking) headers.append("x-tollgate-warning", g.message);
  }
  if (first.done) throw new Error("the pipeline ended without an answer");
  const head = first.value;
  if (head.type === "error") {
    recordFallbacks(turnId, head.stamp, deps);
    deps.recorder.event(turnId, { type: "error", class: head.error.class, message: head.error.message });
    await close(head.stamp, head.error.class === "aborted" ? "stopped" : "failed", {
      class: head.error.class,
      message: head.error.message,
    });
    return callErrorResponse(head.error, headers);
  }
  if (!body.stream) {
    // One JSON answer: the pipeline's only event after the guardrails is `done` (or the error above).
    if (head.type !== "done") throw new Error(`unexpected ${head.type} event in a JSON answer`);
    const res = head.response;
    // A stream hears of each fallback as it happens; a JSON answer's are read from its stamp's attempts.
    recordFallbacks(turnId, res.stamp, deps);
    for (const call of res.message.toolCalls)
      deps.recorder.event(turnId, { type: "tool_call", call, round: 1 });
    await drain(events);
    await close(res.stamp, "success");
    if (res.stamp.cacheHit) headers.set("x-tollgate-cache", "hit");
    return Response.json(completionBody(`chatcmpl-${turnId}`, Math.floor(startedAt.getTime() / 1000), res), {
      headers,
    });
  }
  return streamCompletion(turnId, startedAt, body, prepend(head, events), deps, close, headers);
}

/** Lets the steps after the answer finish (cache write, budget settle) before the call is closed. */
async function drain(events: AsyncGenerator<PipelineEvent>): Promise<void> {
  for (let r = await events.next(); !r.done; r = await events.next()) {}
}

async function* prepend<T>(head: T, rest: AsyncGenerator<T>): AsyncGenerator<T> {
  yield head;
  yield* rest;
}

function streamCompletion(
  turnId: string,
  startedAt: Date,
  body: ChatCompletionRequest,
  events: AsyncGenerator<PipelineEvent>,
  deps: V1Deps,
  close: (stamp: Stamp | undefined, status: TurnStatus, error?: TurnError) => Promise<void>,
  headers: Headers,
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
      let done: Extract<PipelineEvent, { type: "done" }> | undefined;
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
        } else if (event.type === "guardrail") {
          // After the headers went out (a budget overrun found when the call settles): the audit still has it.
          deps.recorder.event(turnId, { type: "guardrail", code: event.code, message: event.message });
        } else if (event.type === "fallback") {
          deps.recorder.event(turnId, fallbackNotice(event.from, event.errorClass));
        } else if (event.type === "done") {
          done = event;
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
      // Closed after the pipeline's last step (the budget settles when the answer is complete).
      if (done) await close(done.response.stamp, "success");
      try {
        controller.close();
      } catch {}
    },
  });
  headers.set("content-type", "text/event-stream; charset=utf-8");
  headers.set("cache-control", "no-cache");
  return new Response(stream, { headers });
}

const fallbackNotice = (from: { provider: string; model: string }, errorClass: string) => ({
  type: "notice" as const,
  code: "fallback" as const,
  message: `${from.provider}/${from.model} failed (${errorClass}); trying the next model.`,
});

/**
 * The `fallback` audit events of a call that was not streamed (or failed before its first token): one per
 * candidate that failed before another was tried, from the stamp's attempts, as a stream reports them.
 */
function recordFallbacks(turnId: string, stamp: Stamp | undefined, deps: V1Deps): void {
  for (const failed of fallbacksOf(stamp?.attempts ?? [])) {
    deps.recorder.event(turnId, fallbackNotice(failed, failed.errorClass));
  }
}

/** Candidates left for the next one after failing: each run of attempts on one deployment, but the last. */
export function fallbacksOf(attempts: Attempt[]): { provider: string; model: string; errorClass: string }[] {
  const runs: Attempt[][] = [];
  for (const a of attempts) {
    const run = runs[runs.length - 1];
    if (run && run[0]!.provider === a.provider && run[0]!.model === a.model) run.push(a);
    else runs.push([a]);
  }
  return runs.slice(0, -1).flatMap((run) => {
    const last = run[run.length - 1]!;
    return last.outcome === "error"
      ? [{ provider: last.provider, model: last.model, errorClass: last.errorClass ?? "error" }]
      : [];
  });
}

const BODY_ERROR_CODE = {
  too_large: "request_too_large",
  too_deep: "json_too_deep",
  invalid_json: "invalid_json",
} as const;

const sentence = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;

/** Tool-call arguments in the history are JSON inside strings: the same depth limit applies to them. */
function checkArgumentsDepth(body: ChatCompletionRequest, maxDepth: number): void {
  body.messages.forEach((m, i) => {
    if (m.role !== "assistant") return;
    m.tool_calls?.forEach((call, j) => {
      const param = `messages.${i}.tool_calls.${j}.function.arguments`;
      if (jsonDepthExceeds(call.function.arguments, maxDepth)) throw tooDeep(maxDepth, param, param);
    });
  });
}

/** How a /v1 call ended, for the ledger: one round, no tool run here, and no conversation. */
function summaryOf(
  turnId: string,
  model: string,
  stamp: Stamp | undefined,
  status: TurnStatus,
  latencyMs: number,
  error?: TurnError,
): ApiTurnSummary {
  return {
    turnId,
    conversationId: null,
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
    cacheHits: stamp?.cacheHit ? 1 : 0,
    error,
  };
}
