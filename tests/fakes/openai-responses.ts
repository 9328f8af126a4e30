// The fake OpenAI Responses route (POST /v1/responses): a `response` object, or with `stream: true` the real
// event sequence, each SSE event named by its type and numbered by sequence_number.
import type { ServerResponse } from "node:http";
import {
  defaultOutputTokens,
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
  textPieces,
} from "./http";
import { OPENAI_DEFAULT_MODEL, openaiHeaders, sendOpenAIError } from "./openai-wire";

type AnswerReply = Extract<RenderableReply, { kind: "text" | "tool_calls" }>;
type StreamReply = Exclude<RenderableReply, { kind: "error" }>;

type OutputText = { type: "output_text"; annotations: []; logprobs: []; text: string };
type MessageItem = {
  id: string;
  type: "message";
  status: "in_progress" | "completed";
  content: OutputText[];
  role: "assistant";
};
type FunctionCallItem = {
  id: string;
  type: "function_call";
  status: "in_progress" | "completed";
  arguments: string;
  call_id: string;
  name: string;
};
type OutputItem = MessageItem | FunctionCallItem;

export async function renderResponses(
  reply: RenderableReply,
  req: RecordedRequest,
  res: ServerResponse,
): Promise<void> {
  if (reply.kind === "error") return sendOpenAIError(res, reply);
  if (reply.kind === "text" && reply.delayMs) await sleep(reply.delayMs);
  const shell = responseShell(req.body, "model" in reply ? reply.model : undefined);
  if (isStreamRequest(req)) return stream(reply, res, shell);
  if (reply.kind === "hang_after_headers") {
    return sendHeadersOnly(res, { "content-type": "application/json", ...openaiHeaders() });
  }
  const answer: AnswerReply = reply.kind === "cut" ? { kind: "text", text: reply.text } : reply;
  const body = completed(shell, outputItems(answer), resolveUsage(answer.usage, defaultOutputTokens(answer)));
  if (reply.kind === "cut") return sendTruncatedJson(res, body, openaiHeaders());
  sendJson(res, 200, body, openaiHeaders());
}

type Shell = ReturnType<typeof responseShell>;

/** The response object as response.created shows it: in progress, no output, no usage yet. */
function responseShell(request: Record<string, unknown>, model: string | undefined) {
  const echo = (key: string) => request[key] ?? null;
  return {
    id: fakeId("resp_", 48),
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status: "in_progress" as "in_progress" | "completed",
    background: false,
    completed_at: null as number | null,
    error: null,
    incomplete_details: null,
    instructions: echo("instructions"),
    max_output_tokens: echo("max_output_tokens"),
    max_tool_calls: null,
    model: model ?? OPENAI_DEFAULT_MODEL,
    output: [] as OutputItem[],
    parallel_tool_calls: true,
    previous_response_id: echo("previous_response_id"),
    prompt_cache_key: null,
    reasoning: { effort: null, summary: null },
    safety_identifier: null,
    service_tier: "default",
    store: request.store ?? true,
    temperature: request.temperature ?? 1,
    text: { format: { type: "text" }, verbosity: "medium" },
    tool_choice: request.tool_choice ?? "auto",
    tools: request.tools ?? [],
    top_logprobs: 0,
    top_p: request.top_p ?? 1,
    truncation: "disabled",
    usage: null as ReturnType<typeof usageBody> | null,
    user: null,
    metadata: request.metadata ?? {},
  };
}

function completed(shell: Shell, output: OutputItem[], usage: ResolvedUsage) {
  return {
    ...shell,
    status: "completed" as const,
    completed_at: Math.floor(Date.now() / 1000),
    output,
    usage: usageBody(usage),
  };
}

function usageBody(u: ResolvedUsage) {
  const input = u.input + u.cached;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: u.cached },
    output_tokens: u.output,
    output_tokens_details: { reasoning_tokens: u.reasoning },
    total_tokens: input + u.output,
  };
}

const outputText = (text: string): OutputText => ({
  type: "output_text",
  annotations: [],
  logprobs: [],
  text,
});

/** The finished output: the text as one message (if any), then one function_call per tool call. */
function outputItems(reply: AnswerReply): OutputItem[] {
  const items: OutputItem[] = [];
  const text: string | undefined = reply.text;
  if (text !== undefined) {
    items.push({
      id: fakeId("msg_", 48),
      type: "message",
      status: "completed",
      content: [outputText(text)],
      role: "assistant",
    });
  }
  for (const call of reply.kind === "tool_calls" ? reply.calls : []) {
    items.push({
      id: fakeId("fc_", 48),
      type: "function_call",
      status: "completed",
      arguments: JSON.stringify(call.args),
      call_id: call.id ?? fakeId("call_"),
      name: call.name,
    });
  }
  return items;
}

async function stream(reply: StreamReply, res: ServerResponse, shell: Shell): Promise<void> {
  const sse = openSse(res, openaiHeaders());
  let sequence = 0;
  const send = (type: string, fields: Record<string, unknown>) =>
    sse.send({ type, sequence_number: sequence++, ...fields }, type);

  await send("response.created", { response: shell });
  if (reply.kind === "hang_after_headers") return;
  await send("response.in_progress", { response: shell });

  if (reply.kind === "cut") {
    const item = outputItems({ kind: "text", text: reply.text })[0] as MessageItem;
    await openMessage(send, item, 0);
    for (const delta of textPieces(reply).slice(0, reply.afterChunks)) {
      await send("response.output_text.delta", textRef(item.id, 0, { delta, logprobs: [] }));
    }
    if (reply.ending !== "stall") sse.cut();
    return;
  }

  const items = outputItems(reply);
  for (const [index, item] of items.entries()) {
    if (sse.closed) return;
    if (item.type === "message") await streamMessage(send, sse, item, index, reply);
    else await streamFunctionCall(send, item, index);
  }
  const usage = resolveUsage(reply.usage, defaultOutputTokens(reply));
  await send("response.completed", { response: completed(shell, items, usage) });
  sse.end();
}

type Send = (type: string, fields: Record<string, unknown>) => Promise<void>;

const textRef = (itemId: string, outputIndex: number, fields: Record<string, unknown>) => ({
  item_id: itemId,
  output_index: outputIndex,
  content_index: 0,
  ...fields,
});

async function openMessage(send: Send, item: MessageItem, index: number): Promise<void> {
  await send("response.output_item.added", {
    output_index: index,
    item: { ...item, status: "in_progress", content: [] },
  });
  await send("response.content_part.added", textRef(item.id, index, { part: outputText("") }));
}

async function streamMessage(
  send: Send,
  sse: SseWriter,
  item: MessageItem,
  index: number,
  reply: AnswerReply,
): Promise<void> {
  const part = item.content[0] as OutputText;
  await openMessage(send, item, index);
  const pieces = reply.kind === "text" ? textPieces(reply) : textPieces({ text: part.text });
  const delay = reply.kind === "text" ? (reply.chunkDelayMs ?? 0) : 0;
  for (const delta of pieces) {
    if (sse.closed) return;
    if (delay > 0) await sleep(delay);
    await send("response.output_text.delta", textRef(item.id, index, { delta, logprobs: [] }));
  }
  await send("response.output_text.done", textRef(item.id, index, { text: part.text, logprobs: [] }));
  await send("response.content_part.done", textRef(item.id, index, { part }));
  await send("response.output_item.done", { output_index: index, item });
}

async function streamFunctionCall(send: Send, item: FunctionCallItem, index: number): Promise<void> {
  await send("response.output_item.added", {
    output_index: index,
    item: { ...item, status: "in_progress", arguments: "" },
  });
  for (const delta of splitPieces(item.arguments)) {
    await send("response.function_call_arguments.delta", { item_id: item.id, output_index: index, delta });
  }
  await send("response.function_call_arguments.done", {
    item_id: item.id,
    output_index: index,
    arguments: item.arguments,
    name: item.name,
  });
  await send("response.output_item.done", { output_index: index, item });
}
