// A fake OpenAI server for the official SDK: Chat Completions (POST /v1/chat/completions, JSON and SSE) here,
// Embeddings and Responses in their own files.
import type { ServerResponse } from "node:http";
import {
  defaultOutputTokens,
  type FakeProvider,
  fakeId,
  isStreamRequest,
  openSse,
  type RecordedRequest,
  type RenderableReply,
  type ResolvedUsage,
  resolveUsage,
  sendHeadersOnly,
  sendJson,
  sendTruncatedJson,
  sleep,
  splitPieces,
  startFakeServer,
  textPieces,
} from "./http";
import { renderEmbeddings } from "./openai-embeddings";
import {
  renderImageEdits,
  renderImageGenerations,
  renderSpeech,
  renderTranscriptions,
  renderTranslations,
} from "./openai-media";
import { renderModerations } from "./openai-moderations";
import { renderResponses } from "./openai-responses";
import { OPENAI_DEFAULT_MODEL, openaiHeaders as responseHeaders, sendOpenAIError } from "./openai-wire";

export type { FakeProvider, FakeReply, FakeToolCall, FakeUsage, RecordedRequest } from "./http";
export { OPENAI_DEFAULT_MODEL } from "./openai-wire";

/**
 * Base URL for `new OpenAI({ baseURL })` is `fake.url` (it ends in /v1). Serves POST /v1/chat/completions,
 * /v1/embeddings and /v1/responses from one reply queue; anything else is OpenAI's 404. With `keys`, only those
 * bearer keys are let in (any other is OpenAI's 401), as a revoked key is refused.
 */
export function startFakeOpenAI(port = 0, options: { keys?: string[] } = {}): Promise<FakeProvider> {
  const keys = options.keys ? new Set(options.keys) : undefined;
  return startFakeServer(
    {
      route: "/v1/chat/completions",
      urlSuffix: "/v1",
      render,
      validate: validateToolHistory,
      routes: {
        "/v1/embeddings": renderEmbeddings,
        "/v1/responses": renderResponses,
        "/v1/moderations": renderModerations,
        "/v1/images/generations": renderImageGenerations,
        "/v1/images/edits": renderImageEdits,
        "/v1/audio/transcriptions": renderTranscriptions,
        "/v1/audio/translations": renderTranslations,
        "/v1/audio/speech": renderSpeech,
      },
      authorize: keys
        ? (req) => {
            const key = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ""))?.[1];
            return key && keys.has(key)
              ? null
              : {
                  kind: "error",
                  status: 401,
                  type: "invalid_request_error",
                  message: `Incorrect API key provided: ${(key ?? "").slice(0, 3)}***. You can find your API key at https://platform.openai.com/account/api-keys.`,
                };
          }
        : undefined,
    },
    port,
  );
}

type Completion = {
  id: string;
  created: number;
  model: string;
  fingerprint: string;
};

function newCompletion(model: string | undefined): Completion {
  return {
    id: fakeId("chatcmpl-", 29),
    created: Math.floor(Date.now() / 1000),
    model: model ?? OPENAI_DEFAULT_MODEL,
    fingerprint: fakeId("fp_", 10),
  };
}

/**
 * How a service that speaks chat completions differs from OpenAI's own (Azure OpenAI's): the model it names by
 * default, and what it adds to an answer and to a stream (its content filter's verdicts).
 */
export type ChatFlavour = {
  defaultModel?: (req: RecordedRequest) => string;
  /** Fields added to a whole answer, and to each choice of it (and of each streamed chunk). */
  answerExtras?: () => Record<string, unknown>;
  choiceExtras?: () => Record<string, unknown>;
  /** A chunk sent before the first one (Azure's prompt verdicts, with no choices). */
  leadChunk?: () => Record<string, unknown>;
};

async function render(reply: RenderableReply, req: RecordedRequest, res: ServerResponse): Promise<void> {
  return renderChatCompletion(reply, req, res, {});
}

/** A chat completion (JSON or SSE) for a scripted reply, in OpenAI's wire format and `flavour`'s additions. */
export async function renderChatCompletion(
  reply: RenderableReply,
  req: RecordedRequest,
  res: ServerResponse,
  flavour: ChatFlavour,
): Promise<void> {
  if (reply.kind === "error") return sendOpenAIError(res, reply);
  if (reply.kind === "text" && reply.delayMs) await sleep(reply.delayMs);
  const c = newCompletion("model" in reply && reply.model ? reply.model : flavour.defaultModel?.(req));
  if (!isStreamRequest(req)) {
    if (reply.kind === "hang_after_headers") {
      sendHeadersOnly(res, { "content-type": "application/json", ...responseHeaders() });
    } else if (reply.kind === "cut") {
      await sendTruncatedJson(
        res,
        completionBody(c, { kind: "text", text: reply.text }, flavour),
        responseHeaders(),
      );
    } else {
      sendJson(res, 200, completionBody(c, reply, flavour), responseHeaders());
    }
    return;
  }
  await stream(reply, req, res, c, flavour);
}

function completionBody(
  c: Completion,
  reply: Extract<RenderableReply, { kind: "text" | "tool_calls" }>,
  flavour: ChatFlavour,
) {
  const usage = resolveUsage(reply.usage, defaultOutputTokens(reply));
  const toolCalls = reply.kind === "tool_calls" ? reply.calls : [];
  return {
    ...flavour.answerExtras?.(),
    id: c.id,
    object: "chat.completion",
    created: c.created,
    model: c.model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: reply.text ?? null,
          // The real API omits tool_calls entirely when there are none.
          ...(toolCalls.length > 0
            ? {
                tool_calls: toolCalls.map((call) => ({
                  id: call.id ?? fakeId("call_"),
                  type: "function",
                  function: { name: call.name, arguments: JSON.stringify(call.args) },
                })),
              }
            : {}),
          refusal: null,
          annotations: [],
        },
        logprobs: null,
        finish_reason: toolCalls.length > 0 ? "tool_calls" : "stop",
        ...flavour.choiceExtras?.(),
      },
    ],
    usage: usageBody(usage),
    service_tier: "default",
    system_fingerprint: c.fingerprint,
  };
}

function usageBody(u: ResolvedUsage) {
  const prompt = u.input + u.cached;
  return {
    prompt_tokens: prompt,
    completion_tokens: u.output,
    total_tokens: prompt + u.output,
    prompt_tokens_details: { cached_tokens: u.cached, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: u.reasoning,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

async function stream(
  reply: Exclude<RenderableReply, { kind: "error" }>,
  req: RecordedRequest,
  res: ServerResponse,
  c: Completion,
  flavour: ChatFlavour,
): Promise<void> {
  const options = req.body.stream_options as { include_usage?: boolean } | undefined;
  const includeUsage = options?.include_usage === true;
  const sse = openSse(res, responseHeaders());
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    sse.send({
      id: c.id,
      object: "chat.completion.chunk",
      created: c.created,
      model: c.model,
      service_tier: "default",
      system_fingerprint: c.fingerprint,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish, ...flavour.choiceExtras?.() }],
      // With include_usage the real API sends `usage: null` on every chunk but the last.
      ...(includeUsage ? { usage: null } : {}),
    });

  if (flavour.leadChunk) await sse.send(flavour.leadChunk());
  await chunk({ role: "assistant", content: "", refusal: null });
  if (reply.kind === "hang_after_headers") return;
  if (reply.kind === "cut") {
    for (const piece of textPieces(reply).slice(0, reply.afterChunks)) await chunk({ content: piece });
    if (reply.ending !== "stall") sse.cut();
    return;
  }

  const delay = reply.kind === "text" ? (reply.chunkDelayMs ?? 0) : 0;
  const pieces =
    reply.kind === "text" ? textPieces(reply) : reply.text ? textPieces({ text: reply.text }) : [];
  for (const piece of pieces) {
    if (sse.closed) return;
    if (delay > 0) await sleep(delay);
    await chunk({ content: piece });
  }
  const calls = reply.kind === "tool_calls" ? reply.calls : [];
  for (const [index, call] of calls.entries()) {
    const head = { index, id: call.id ?? fakeId("call_"), type: "function" };
    await chunk({ tool_calls: [{ ...head, function: { name: call.name, arguments: "" } }] });
    for (const piece of splitPieces(JSON.stringify(call.args))) {
      await chunk({ tool_calls: [{ index, function: { arguments: piece } }] });
    }
  }
  await chunk({}, calls.length > 0 ? "tool_calls" : "stop");
  if (includeUsage) {
    const usage = resolveUsage(reply.usage, defaultOutputTokens(reply));
    await sse.send({
      id: c.id,
      object: "chat.completion.chunk",
      created: c.created,
      model: c.model,
      service_tier: "default",
      system_fingerprint: c.fingerprint,
      choices: [],
      usage: usageBody(usage),
    });
  }
  await sse.send("[DONE]");
  sse.end();
}

type WireMessage = { role?: string; tool_calls?: { id: string }[]; tool_call_id?: string };

/** OpenAI's rule: an assistant message with tool_calls must be followed by a tool message for each call. */
export function validateToolHistory(body: Record<string, unknown>): string | null {
  const messages = (Array.isArray(body.messages) ? body.messages : []) as WireMessage[];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (
      m.role === "tool" &&
      !messages.slice(0, i).some((p) => p.tool_calls?.some((c) => c.id === m.tool_call_id))
    ) {
      return "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.";
    }
    if (m.role !== "assistant" || !m.tool_calls?.length) continue;
    const answered = new Set<string>();
    for (let j = i + 1; j < messages.length && messages[j]!.role === "tool"; j++)
      answered.add(messages[j]!.tool_call_id ?? "");
    const missing = m.tool_calls.map((c) => c.id).filter((id) => !answered.has(id));
    if (missing.length) {
      return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${missing.join(", ")}`;
    }
  }
  return null;
}
