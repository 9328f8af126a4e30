// A fake Anthropic Messages server (POST /v1/messages, JSON and SSE; POST /v1/messages/count_tokens) for the
// official SDK.
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
  type SseWriter,
  sendHeadersOnly,
  sendJson,
  sendTruncatedJson,
  sleep,
  splitPieces,
  startFakeServer,
  textPieces,
} from "./http";

export type { FakeProvider, FakeReply, FakeToolCall, FakeUsage, RecordedRequest } from "./http";

export const ANTHROPIC_DEFAULT_MODEL = "claude-sonnet-4-5-20250929";

/** Base URL for `new Anthropic({ baseURL })` is `fake.url` (the SDK appends /v1/messages). */
export function startFakeAnthropic(port = 0): Promise<FakeProvider> {
  return startFakeServer(
    {
      route: "/v1/messages",
      render,
      validate: validateToolHistory,
      routes: { "/v1/messages/count_tokens": { render: renderCountTokens, validate: validateToolHistory } },
    },
    port,
  );
}

/**
 * `{input_tokens}` for the request: a reply's usage.input when scripted, else about one token per four
 * characters of what the model would read (system, messages, tools).
 */
async function renderCountTokens(reply: RenderableReply, req: RecordedRequest, res: ServerResponse) {
  if (reply.kind === "error") return render(reply, req, res);
  const scripted = "usage" in reply ? reply.usage?.input : undefined;
  const { system, messages, tools } = req.body;
  const read = JSON.stringify([system ?? "", messages ?? [], tools ?? []]);
  sendJson(
    res,
    200,
    { input_tokens: scripted ?? Math.max(1, Math.ceil(read.length / 4)) },
    responseHeaders(),
  );
}

type AnswerReply = Extract<RenderableReply, { kind: "text" | "tool_calls" }>;
type Block =
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };

const responseHeaders = (): Record<string, string> => ({ "request-id": fakeId("req_011C", 20) });

async function render(reply: RenderableReply, req: RecordedRequest, res: ServerResponse): Promise<void> {
  if (reply.kind === "error") {
    const body = {
      type: "error",
      error: {
        type: reply.type ?? errorType(reply.status),
        message: reply.message ?? `Fake error (${reply.status})`,
      },
    };
    sendJson(res, reply.status, body, { ...responseHeaders(), ...reply.headers });
    return;
  }
  const id = fakeId("msg_01", 22);
  const model = ("model" in reply ? reply.model : undefined) ?? ANTHROPIC_DEFAULT_MODEL;
  if (!isStreamRequest(req)) {
    if (reply.kind === "hang_after_headers") {
      sendHeadersOnly(res, { "content-type": "application/json", ...responseHeaders() });
    } else if (reply.kind === "cut") {
      await sendTruncatedJson(
        res,
        messageBody(id, model, { kind: "text", text: reply.text }),
        responseHeaders(),
      );
    } else {
      sendJson(res, 200, messageBody(id, model, reply), responseHeaders());
    }
    return;
  }
  await stream(reply, res, id, model);
}

function blocksOf(reply: AnswerReply): Block[] {
  if (reply.kind === "text") return [{ type: "text", text: reply.text }];
  const tools: Block[] = reply.calls.map((call) => ({
    type: "tool_use",
    id: call.id ?? fakeId("toolu_01", 22),
    name: call.name,
    input: call.args,
  }));
  return reply.text ? [{ type: "text", text: reply.text }, ...tools] : tools;
}

const stopReason = (reply: AnswerReply) => (reply.kind === "tool_calls" ? "tool_use" : "end_turn");

function usageBody(u: ResolvedUsage, outputTokens: number) {
  return {
    input_tokens: u.input,
    cache_creation_input_tokens: u.cacheWrite,
    cache_read_input_tokens: u.cached,
    cache_creation: { ephemeral_5m_input_tokens: u.cacheWrite, ephemeral_1h_input_tokens: 0 },
    output_tokens: outputTokens,
    service_tier: "standard",
  };
}

function messageBody(id: string, model: string, reply: AnswerReply) {
  const usage = resolveUsage(reply.usage, defaultOutputTokens(reply));
  return {
    ...messageShell(id, model),
    content: blocksOf(reply),
    stop_reason: stopReason(reply),
    usage: usageBody(usage, usage.output),
  };
}

// The SDK (API version 2026-10-21) types container, diagnostics and stop_details as required-but-nullable.
function messageShell(id: string, model: string) {
  const nulls = { stop_sequence: null, stop_details: null, container: null, diagnostics: null };
  return { id, type: "message", role: "assistant", model, ...nulls };
}

async function stream(
  reply: Exclude<RenderableReply, { kind: "error" }>,
  res: ServerResponse,
  id: string,
  model: string,
): Promise<void> {
  const sse = openSse(res, responseHeaders());
  const send = (data: { type: string } & Record<string, unknown>) => sse.send(data, data.type);
  const usage = resolveUsage("usage" in reply ? reply.usage : undefined, defaultOutputTokens(reply));
  // message_start carries the input side of usage; output_tokens is a placeholder the delta replaces.
  const message = { ...messageShell(id, model), content: [], stop_reason: null, usage: usageBody(usage, 1) };
  await send({ type: "message_start", message });
  if (reply.kind === "hang_after_headers") return;
  await send({ type: "ping" });

  if (reply.kind === "cut") {
    await send({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } });
    for (const text of textPieces(reply).slice(0, reply.afterChunks)) {
      await send({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text } });
    }
    if (reply.ending !== "stall") sse.cut();
    return;
  }

  for (const [index, block] of blocksOf(reply).entries()) {
    if (sse.closed) return;
    await streamBlock(sse, index, block, reply);
  }
  await send({
    type: "message_delta",
    delta: { stop_reason: stopReason(reply), stop_sequence: null, stop_details: null, container: null },
    usage: { output_tokens: usage.output },
  });
  await send({ type: "message_stop" });
  sse.end();
}

async function streamBlock(sse: SseWriter, index: number, block: Block, reply: AnswerReply): Promise<void> {
  const send = (data: { type: string } & Record<string, unknown>) => sse.send(data, data.type);
  if (block.type === "text") {
    await send({ type: "content_block_start", index, content_block: { type: "text", text: "" } });
    const pieces = reply.kind === "text" ? textPieces(reply) : textPieces({ text: block.text });
    const delay = reply.kind === "text" ? (reply.chunkDelayMs ?? 0) : 0;
    for (const text of pieces) {
      if (sse.closed) return;
      if (delay > 0) await sleep(delay);
      await send({ type: "content_block_delta", index, delta: { type: "text_delta", text } });
    }
  } else {
    const start = { type: "tool_use", id: block.id, name: block.name, input: {} };
    await send({ type: "content_block_start", index, content_block: start });
    // The real API opens every tool input with an empty partial_json before the pieces.
    for (const partial_json of ["", ...splitPieces(JSON.stringify(block.input))]) {
      await send({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json } });
    }
  }
  await send({ type: "content_block_stop", index });
}

function errorType(status: number): string {
  switch (status) {
    case 400:
      return "invalid_request_error";
    case 401:
      return "authentication_error";
    case 403:
      return "permission_error";
    case 404:
      return "not_found_error";
    case 413:
      return "request_too_large";
    case 429:
      return "rate_limit_error";
    case 529:
      return "overloaded_error";
    default:
      return status >= 500 ? "api_error" : "invalid_request_error";
  }
}

type WireBlock = { type?: string; id?: string; tool_use_id?: string };
type WireMessage = { role?: string; content?: string | WireBlock[] };

/** Anthropic's rule: every tool_use must have its tool_result in the very next (user) message, and only there. */
export function validateToolHistory(body: Record<string, unknown>): string | null {
  const messages = (Array.isArray(body.messages) ? body.messages : []) as WireMessage[];
  const blocks = (m: WireMessage | undefined) => (Array.isArray(m?.content) ? m.content : []);
  for (let i = 0; i < messages.length; i++) {
    const uses = blocks(messages[i])
      .filter((b) => b.type === "tool_use")
      .map((b) => b.id ?? "");
    const results = blocks(messages[i + 1])
      .filter((b) => b.type === "tool_result")
      .map((b) => b.tool_use_id ?? "");
    const missing = uses.filter((id) => !results.includes(id));
    if (messages[i]?.role === "assistant" && missing.length) {
      return `messages.${i + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
    }
    const previousUses = blocks(messages[i - 1])
      .filter((b) => b.type === "tool_use")
      .map((b) => b.id ?? "");
    const stray = blocks(messages[i]).filter(
      (b) => b.type === "tool_result" && !previousUses.includes(b.tool_use_id ?? ""),
    );
    if (stray.length) {
      return `messages.${i}.content: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${stray.map((b) => b.tool_use_id).join(", ")}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
    }
  }
  return null;
}
