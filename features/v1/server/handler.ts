import "server-only";
import { v7 as uuidv7 } from "uuid";
import type { Database } from "@/db";
import { checkApiKey, type KeyCheck, keyExpiredMessage, type ResolvedKey } from "@/lib/auth/api-keys";
import { outageRefusal } from "@/lib/core/errors/dependency";
import { isShutdownDeadline } from "@/lib/core/process/lifecycle";
import { log } from "@/lib/core/process/log";
import { describeRequest, offeredTools, type WireFormat } from "@/lib/gateway/forward/formats";
import { isMediaFormat, MULTIPART_FORMATS, mediaContentType } from "@/lib/gateway/forward/media";
import type { Gateway } from "@/lib/gateway/gateway";
import type { Json } from "@/lib/gateway/translate/types";
import type { Stamp } from "@/lib/gateway/types";
import {
  type ApiAnswer,
  type ApiHandler,
  type ApiRequest,
  appendHeader,
  headerOf,
  webHandler,
} from "@/lib/http/exchange";
import { apiBodyLimitFor, apiBodyLimits, jsonDepthExceeds, tooDeep, tooLarge } from "@/lib/http/limits";
import type { Pipeline } from "@/lib/pipeline/pipeline";
import type { Caller } from "@/lib/pipeline/policy";
import { rateLimitHeaders } from "@/lib/pipeline/rate-limit-headers";
import type { PipelineEvent } from "@/lib/pipeline/types";
import { callSummary, contentFilterEvent, type TurnError, type TurnStatus } from "@/lib/turns/events";
import type { ApiAttribution, TurnObserver, TurnPrompt } from "@/lib/turns/observer";
import { attributionOf, runIdOf } from "./attribution";
import { budgetView } from "./budget-view";
import { ANTHROPIC, type Dialect, OPENAI } from "./dialects";
import { mediaProblemOf } from "./media-checks";
import { countTokens, getModel, listModels } from "./models";
import { readUpload, type Upload } from "./multipart";
import { applyPromptRef } from "./prompt-ref";
import { getPrompt } from "./prompts";
import { readBody } from "./read-body";
import { postScore } from "./scores";

export type V1Deps = {
  db: () => Promise<Database>;
  gateway: () => Gateway;
  pipeline: Pipeline;
  recorder: TurnObserver;
};

/** The model-calling endpoints: each path, the wire format its body is in, and the dialect of its errors. */
const ENDPOINTS: Record<string, { format: WireFormat; dialect: Dialect }> = {
  "/v1/chat/completions": { format: "openai-chat", dialect: OPENAI },
  "/v1/embeddings": { format: "openai-embeddings", dialect: OPENAI },
  "/v1/moderations": { format: "openai-moderations", dialect: OPENAI },
  "/v1/responses": { format: "openai-responses", dialect: OPENAI },
  "/v1/images/generations": { format: "openai-image-generations", dialect: OPENAI },
  "/v1/images/edits": { format: "openai-image-edits", dialect: OPENAI },
  "/v1/audio/transcriptions": { format: "openai-transcriptions", dialect: OPENAI },
  "/v1/audio/translations": { format: "openai-translations", dialect: OPENAI },
  "/v1/audio/speech": { format: "openai-speech", dialect: OPENAI },
  "/v1/messages": { format: "anthropic-messages", dialect: ANTHROPIC },
};

/** The dialect of a path: Anthropic's for /v1/messages and what is under it, else OpenAI's. */
export const dialectOf = (path: string): Dialect => (/\/v1\/messages(\/|$)/.test(path) ? ANTHROPIC : OPENAI);

/**
 * The OpenAI- and Anthropic-compatible API, transport-neutral (see exchange.ts): the lean server (`npm run
 * gateway`) serves it straight from node:http, Next mounts it under /v1 through `createV1Handler`. Every model
 * call is a ledger row (source api) with its audit; its request goes upstream whole, or translated, or is refused
 * with a 400 naming the field.
 */
export function createV1Core(deps: V1Deps): ApiHandler {
  return async (req) => {
    // Always our own id (a call's ledger row id): a client's x-request-id is only logged beside it.
    const requestId = uuidv7();
    const started = performance.now();
    const call: CallState = { turn: false };
    let res: ApiAnswer;
    try {
      res = await answer(req, requestId, deps, call);
    } catch (error) {
      const clientRequestId = headerOf(req, "x-request-id")?.slice(0, 200) || undefined;
      const away = outageRefusal(error);
      if (away) {
        // A dependency that is away is a 503 the SDKs retry, never a 500 they give up on.
        log.warn(
          { err: error, requestId, clientRequestId, dependency: away.dependency, cause: away.cause },
          "/v1 request refused: dependency unavailable",
        );
        res = dialectOf(req.path).error(503, away.message, "service_unavailable");
        res.headers["retry-after"] = away.retryAfter;
      } else {
        log.error({ err: error, requestId, clientRequestId }, "/v1 request failed");
        res = dialectOf(req.path).error(500, `internal error (request id ${requestId})`, "internal_error");
      }
    }
    res.headers["x-request-id"] = requestId;
    // A model call writes its line when its ledger row closes; every other request (a refusal before the call
    // opened, a GET) writes its own here, so each API call has one.
    if (!call.turn)
      log.info(
        {
          requestId,
          method: req.method,
          path: req.path,
          status: res.status,
          latencyMs: Math.round(performance.now() - started),
        },
        "request",
      );
    return res;
  };
}

/** A body past the size limit, refused in the caller's dialect before anything reads it (413). */
export function refuseTooLarge(path: string, maxBytes: number): ApiAnswer {
  const answer = dialectOf(path).error(
    413,
    `${tooLarge(maxBytes).message.replace(/^t/, "T")}.`,
    "request_too_large",
  );
  answer.headers["x-request-id"] = uuidv7();
  return answer;
}

/** A transport-neutral /v1 handler as `(Request) => Response`, with /v1's body limit and 413 (Next's route). */
export const v1WebHandler = (core: ApiHandler): ((req: Request) => Promise<Response>) =>
  webHandler(core, { maxBytes: (path) => apiBodyLimitFor(path), tooLarge: refuseTooLarge });

/** The API as `(Request) => Response`: Next's /v1 route, and tests that call it directly. */
export function createV1Handler(deps: V1Deps): (req: Request) => Promise<Response> {
  return v1WebHandler(createV1Core(deps));
}

/** Whether the request became a model call with a ledger row (which then writes the call's log line). */
type CallState = { turn: boolean };

async function answer(req: ApiRequest, requestId: string, deps: V1Deps, call: CallState): Promise<ApiAnswer> {
  const { path } = req;
  const dialect = dialectOf(path);
  const checked = await authenticate(req, deps);
  if (checked.status === "expired")
    return dialect.error(401, keyExpiredMessage(checked.expiredAt), "key_expired");
  if (checked.status !== "live")
    return dialect.error(
      401,
      "Incorrect API key provided. Create one under your tenant's API keys.",
      "invalid_api_key",
    );
  const { key } = checked;
  const gateway = deps.gateway();
  if (req.method === "GET" && path.endsWith("/v1/models")) return listModels(gateway, req);
  const model = path.match(/\/v1\/models\/(.+)$/);
  if (req.method === "GET" && model) return getModel(gateway, decodeURIComponent(model[1]!), req);
  const prompt = path.match(/\/v1\/prompts\/(.+)$/);
  if (req.method === "GET" && prompt)
    return getPrompt(await deps.db(), key.tenantId, decodeURIComponent(prompt[1]!), req, dialect);
  if (req.method === "POST" && path.endsWith("/v1/scores"))
    return postScore(await deps.db(), key, req, dialect);
  if (req.method === "POST" && path.endsWith("/v1/messages/count_tokens"))
    return countTokens(req, gateway, dialect);
  const endpoint = Object.entries(ENDPOINTS).find(([suffix]) => path.endsWith(suffix))?.[1];
  if (req.method === "POST" && endpoint) return await modelCall(req, requestId, key, deps, endpoint, call);
  return dialect.error(404, `Unknown endpoint: ${req.method} ${path}`, "unknown_url");
}

/** A tenant key as `Authorization: Bearer`, or as `x-api-key` (Anthropic's clients). */
async function authenticate(req: ApiRequest, deps: V1Deps): Promise<KeyCheck> {
  const header = headerOf(req, "authorization") ?? "";
  const secret = header.match(/^Bearer\s+(.+)$/i)?.[1]?.trim() || headerOf(req, "x-api-key")?.trim();
  return secret ? checkApiKey(await deps.db(), secret) : { status: "unknown" };
}

/** What each format must have before anything is sent: the rest is the provider's to judge. */
function problemOf(
  format: WireFormat,
  body: Json,
  maxDepth: number,
): { param: string; message: string; code?: string } | null {
  if (typeof body.model !== "string" || !body.model)
    return { param: "model", message: "model is required (one of this gateway's aliases)" };
  // Images and audio have their own checks (a form's `stream` is the string "true").
  if (isMediaFormat(format)) return mediaProblemOf(format, body);
  if (body.stream !== undefined && typeof body.stream !== "boolean")
    return { param: "stream", message: "stream must be true or false" };
  if (format === "openai-chat" || format === "anthropic-messages") {
    if (!Array.isArray(body.messages) || body.messages.length === 0)
      return { param: "messages", message: "messages must be a non-empty array" };
    for (const [i, m] of (body.messages as unknown[]).entries()) {
      if (!m || typeof m !== "object" || typeof (m as Json).role !== "string")
        return { param: `messages.${i}`, message: "each message must be an object with a role" };
    }
  }
  if (format === "openai-chat") {
    // Tool-call arguments in the history are JSON inside strings: the same depth limit applies to them.
    for (const [i, m] of (body.messages as Json[]).entries()) {
      const calls = Array.isArray(m.tool_calls) ? (m.tool_calls as Json[]) : [];
      for (const [j, call] of calls.entries()) {
        const args = (call.function as Json | undefined)?.arguments;
        const param = `messages.${i}.tool_calls.${j}.function.arguments`;
        if (typeof args === "string" && jsonDepthExceeds(args, maxDepth))
          return { param, message: tooDeep(maxDepth, param, param).message, code: "json_too_deep" };
      }
    }
  }
  if (
    (format === "openai-embeddings" || format === "openai-moderations") &&
    (body.input === undefined || body.input === null || body.input === "")
  )
    return { param: "input", message: "input is required" };
  if (format === "openai-moderations" && body.stream !== undefined && body.stream !== false)
    return { param: "stream", message: "moderations answer whole, never as a stream" };
  return null;
}

async function modelCall(
  req: ApiRequest,
  turnId: string,
  key: ResolvedKey,
  deps: V1Deps,
  endpoint: { format: WireFormat; dialect: Dialect },
  call: CallState,
): Promise<ApiAnswer> {
  const { format, dialect } = endpoint;
  if (MULTIPART_FORMATS.has(format)) {
    const read = await readUpload(req, format, dialect);
    if (read.refused) return read.refused;
    // The upload's files are spooled to disk for the call (a fallback sends them again), and removed after it.
    try {
      return await governedCall(req, turnId, key, deps, endpoint, call, read.upload.body, read.upload);
    } finally {
      await read.upload.dispose();
    }
  }
  const read = readBody(req, dialect);
  if (read.refused) return read.refused;
  return governedCall(req, turnId, key, deps, endpoint, call, read.body);
}

/** A model call whose body is read: prompt, checks, routing, the pipeline, the ledger, the answer. */
async function governedCall(
  req: ApiRequest,
  turnId: string,
  key: ResolvedKey,
  deps: V1Deps,
  endpoint: { format: WireFormat; dialect: Dialect },
  call: CallState,
  received: Json,
  upload?: Upload,
): Promise<ApiAnswer> {
  const { format, dialect } = endpoint;
  const media = isMediaFormat(format);
  let body = received;
  let prompt: TurnPrompt | undefined;
  // An image's `prompt` is its text, not a stored prompt's reference.
  if (body.prompt !== undefined && !media) {
    // A stored prompt (the prompt store): compiled into the body before anything else reads it.
    const applied = await applyPromptRef(await deps.db(), key.tenantId, format, body);
    if (applied && "refused" in applied) {
      const { status, param, message, code } = applied.refused;
      return dialect.error(status, `${param}: ${message}`, code, param);
    }
    if (applied) ({ body, prompt } = applied);
  }
  const problem = problemOf(format, body, apiBodyLimits().maxDepth);
  if (problem)
    return dialect.error(
      400,
      `${problem.param}: ${problem.message}`,
      problem.code ?? "invalid_request",
      problem.param,
    );
  const run = runIdOf(format, body, (name) => headerOf(req, name));
  if ("refused" in run)
    return dialect.error(
      400,
      `${run.refused.param}: ${run.refused.message}`,
      "invalid_request",
      run.refused.param,
    );
  const alias = body.model as string;
  const gateway = deps.gateway();
  if (!gateway.hasModel(alias)) {
    return dialect.error(
      404,
      `The model \`${alias}\` does not exist. Available: ${gateway.modelAliases().join(", ")}`,
      "model_not_found",
      "model",
    );
  }
  const stream = body.stream === true;
  const attribution: ApiAttribution = attributionOf(format, body, (name) => headerOf(req, name));
  const startedAt = new Date();
  const started = performance.now();
  const caller: Caller & { source: "api" } = {
    tenantId: key.tenantId,
    userId: key.createdBy,
    apiKeyId: key.id,
    source: "api",
    // Its end user is held to the key's and the tenant's per-end-user templates (lib/pipeline/policy.ts).
    ...(attribution.endUser ? { endUser: attribution.endUser } : {}),
    // Its run's ceilings apply (lib/pipeline/run-ceiling.ts).
    ...(run.runId ? { runId: run.runId } : {}),
  };
  await deps.recorder.start({
    turnId,
    tenantId: key.tenantId,
    userId: key.createdBy,
    conversationId: null,
    source: "api",
    apiKeyId: key.id,
    requestedModel: alias,
    // Redacted as the tenant's guardrail rules redact it for the provider: the audit keeps no more than it gets.
    message: await deps.pipeline.auditText(caller, alias, describeRequest(format, body)),
    toolsOffered: offeredTools(body),
    startedAt,
    attribution,
    prompt,
    ...(run.runId ? { runId: run.runId } : {}),
  });
  call.turn = true;
  let closed = false;
  const close = async (stamp: Stamp | undefined, stopped: TurnStatus, error?: TurnError) => {
    if (closed) return;
    closed = true;
    // Cut by the server's shutdown deadline rather than by the caller: recorded as interrupted.
    const status = stopped === "stopped" && isShutdownDeadline(req.signal.reason) ? "interrupted" : stopped;
    const filtered = contentFilterEvent(stamp);
    if (filtered) deps.recorder.event(turnId, filtered);
    await deps.recorder.end(
      callSummary(turnId, alias, stamp, status, Math.round(performance.now() - started), error),
    );
  };
  const events = deps.pipeline.run(caller, Object.assign(budgetView(format, body), { signal: req.signal }), {
    stream,
    // An upload's bytes are not in the body the cache key is made of: images and audio are never cached.
    noCache: media || /no-cache|no-store/i.test(headerOf(req, "cache-control") ?? ""),
    wire: {
      format,
      alias,
      body,
      stream,
      ...(upload ? { multipart: upload.parts } : {}),
      headers: {
        anthropicVersion: headerOf(req, "anthropic-version"),
        anthropicBeta: headerOf(req, "anthropic-beta"),
      },
    },
  });
  // Up to the first byte of the answer: guardrail warnings, rate limits, fallbacks and who answers go to headers
  // and the audit; a refusal or an error before anything was sent is an HTTP error, as the providers answer it.
  const headers: Record<string, string> = { "x-request-id": turnId };
  const note = (event: PipelineEvent) => noteEvent(turnId, event, headers, deps);
  let head: IteratorResult<PipelineEvent>;
  for (;;) {
    head = await events.next();
    if (head.done || !note(head.value)) break;
  }
  if (head.done) throw new Error("the pipeline ended without an answer");
  const first = head.value;
  if (first.type === "error") {
    deps.recorder.event(turnId, { type: "error", class: first.error.class, message: first.error.message });
    await close(first.stamp, first.error.class === "aborted" ? "stopped" : "failed", {
      class: first.error.class,
      message: first.error.message,
    });
    return dialect.callError(first.error, headers);
  }
  if (!stream) {
    // One JSON answer: its bytes, then `done` (the steps after the answer finish before the call closes).
    let text = first.type === "bytes" ? first.data : "";
    let done: Extract<PipelineEvent, { type: "done" }> | undefined =
      first.type === "done" ? first : undefined;
    for (let r = await events.next(); !r.done; r = await events.next()) {
      if (r.value.type === "bytes") text += r.value.data;
      else if (r.value.type === "done") done = r.value;
      else note(r.value);
    }
    if (!done) throw new Error("a JSON answer ended without its usage");
    for (const call of done.response.message.toolCalls)
      deps.recorder.event(turnId, { type: "tool_call", call, round: 1 });
    await close(done.response.stamp, "success");
    if (!media) {
      headers["content-type"] = "application/json";
      return { status: 200, headers, body: text };
    }
    headers["content-type"] = mediaContentType(format, body);
    // Speech's audio came through as a byte-for-byte "binary" string.
    return {
      status: 200,
      headers,
      body: format === "openai-speech" ? Buffer.from(text, "latin1") : text,
    };
  }
  return streamAnswer(turnId, first, events, deps, close, headers, dialect);
}

/**
 * Records an event that comes before (or beside) the answer's bytes, and sets its headers. Returns whether it
 * was one of those (false: the answer's own first event).
 */
function noteEvent(
  turnId: string,
  event: PipelineEvent,
  headers: Record<string, string>,
  deps: V1Deps,
): boolean {
  switch (event.type) {
    case "guardrail":
      deps.recorder.event(turnId, { type: "guardrail", code: event.code, message: event.message });
      // A guardrail rule's stage says what it did in its own header (rule ids and entities, never the text).
      if (event.header) appendHeader(headers, "x-tollgate-guardrail", event.header);
      else if (!event.blocking && !event.code.startsWith("guardrail_"))
        appendHeader(headers, "x-tollgate-warning", event.message);
      return true;
    case "rate_limit_state":
      for (const [name, value] of rateLimitHeaders(event)) headers[name] = value;
      return true;
    case "fallback":
      deps.recorder.event(turnId, fallbackNotice(event.from, event.errorClass, event.reason));
      return true;
    case "opened":
      if (event.provider) headers["x-tollgate-provider"] = event.provider;
      if (event.model) headers["x-tollgate-model"] = event.model;
      if (event.fallbackIndex !== null) headers["x-tollgate-fallback-index"] = String(event.fallbackIndex);
      if (event.cacheHit) headers["x-tollgate-cache"] = "hit";
      if (event.dropped.length) {
        headers["x-tollgate-dropped-params"] = event.dropped.join(", ");
        if (!event.cacheHit)
          deps.recorder.event(turnId, {
            type: "guardrail",
            code: "params_dropped",
            message: `Dropped (${event.provider}/${event.model} cannot carry them; hints always, other fields where the alias allows it): ${event.dropped.join(", ")}.`,
          });
      }
      return true;
    default:
      return false;
  }
}

function streamAnswer(
  turnId: string,
  first: PipelineEvent,
  events: AsyncGenerator<PipelineEvent>,
  deps: V1Deps,
  close: (stamp: Stamp | undefined, status: TurnStatus, error?: TurnError) => Promise<void>,
  headers: Record<string, string>,
  dialect: Dialect,
): ApiAnswer {
  let done: Extract<PipelineEvent, { type: "done" }> | undefined;
  /** What an event sends to the caller ("" for none), after recording what it says. */
  const take = async (event: PipelineEvent): Promise<string> => {
    if (event.type === "bytes") return event.data;
    if (event.type === "done") {
      done = event;
      for (const call of event.response.message.toolCalls)
        deps.recorder.event(turnId, { type: "tool_call", call, round: 1 });
    } else if (event.type === "error") {
      // Never a quiet end: the client gets an error event (the provider's own, when it was passed through).
      deps.recorder.event(turnId, { type: "error", class: event.error.class, message: event.error.message });
      await close(event.stamp, event.error.class === "aborted" ? "stopped" : "failed", {
        class: event.error.class,
        message: event.error.message,
      });
      return event.error.relayed ? "" : dialect.streamError(event.error);
    } else noteEvent(turnId, event, headers, deps);
    return "";
  };
  async function* body(): AsyncGenerator<string> {
    let finished = false;
    try {
      for (
        let r: IteratorResult<PipelineEvent> = { done: false, value: first };
        !r.done;
        r = await events.next()
      ) {
        const text = await take(r.value);
        if (text) yield text;
      }
      finished = true;
    } finally {
      // A caller that stopped reading (it went away: its signal ends the upstream call) does not stop the
      // recording: the rest of the events are read, unsent, so the call's ledger row is closed all the same.
      if (!finished) for await (const event of events) await take(event);
      // Closed after the pipeline's last step (the budget settles when the answer is complete).
      if (done) await close(done.response.stamp, "success");
    }
  }
  headers["content-type"] = "text/event-stream; charset=utf-8";
  headers["cache-control"] = "no-cache";
  return { status: 200, headers, body: body() };
}

const fallbackNotice = (from: { provider: string; model: string }, errorClass: string, reason?: string) => ({
  type: "notice" as const,
  code: "fallback" as const,
  message: reason
    ? `${from.provider}/${from.model} skipped: ${reason}; trying the next model.`
    : `${from.provider}/${from.model} failed (${errorClass}); trying the next model.`,
});
